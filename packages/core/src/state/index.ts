export type { AgentState, ReplyState } from './types.js';
export { AGENT_STATE_VERSION } from './types.js';
export { parseAgentState } from './parse.js';
