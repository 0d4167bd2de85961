export type { AgentState, RaisedCall, ReplyState, StoredStateHead } from './types.js';
export { AGENT_STATE_VERSION } from './types.js';
export { parseAgentState, serializeAgentState } from './parse.js';
export {
  agentStateHeadSchema,
  storedStateHeadSchema,
  agentStateSchema,
  permissionContextSchema,
  replyStateSchema,
} from './schema.js';
export type { AgentStateHead } from './head.js';
export { joinStateHead, parseStateHead, serializeStateHead } from './head.js';
export type { AgentStateMigration, MigrateOptions, StoredStateObject } from './migrations.js';
export { agentStateMigrations, migrateAgentState } from './migrations.js';
