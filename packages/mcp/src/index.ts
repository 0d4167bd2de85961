/**
 * @parley/mcp: the tools of any MCP server as Parley tools, decided by the
 * same permission engine, and MCP elicitation carried through Parley's
 * park/resume protocol as `McpElicitation` calls.
 */
export { connectMcp, McpConnections } from './connect-mcp.js';
export type { ConnectMcpOptions, McpManifest } from './connect-mcp.js';
export { loadMcpConfig, parseMcpConfig } from './config.js';
export type {
  McpConfig,
  McpHttpServerConfig,
  McpProtocol,
  McpServerConfig,
  McpStdioServerConfig,
  McpTransportServerConfig,
} from './config.js';
export { McpConfigError, McpServerError } from './errors.js';
export { checkElicitationUrl } from './elicitation-url.js';
export type { ElicitationUrlCheck } from './elicitation-url.js';
export {
  MCP_ELICITATION,
  McpElicitation,
  checkMcpElicitationAnswer,
  mcpElicitationInputSchema,
  mcpElicitationMetadataSchema,
  mcpElicitationResult,
  parseElicitationCall,
} from './elicitation.js';
export type {
  McpElicitationAnswer,
  McpElicitationInput,
  McpElicitationMetadata,
} from './elicitation.js';
export { mcpTexts } from './mcp-tool.js';
export { MAX_SERVER_NAME_CHARS, MAX_TOOL_NAME_CHARS, mcpToolName } from './names.js';
export { MAX_DESCRIPTION_CHARS, MAX_SCHEMA_CHARS } from './tool-list.js';
export type { McpToolProblem } from './tool-list.js';
export type { McpTool } from './mcp-tool.js';
export { toToolResponse } from './results.js';
