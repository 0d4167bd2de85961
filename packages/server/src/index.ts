/**
 * @parley/server: Parley over HTTP. Sessions, replies and their answers as
 * JSON routes, events as server-sent events numbered per session, owners
 * and approvers (see HTTP.md and docs/guides/serving.md).
 */
export type { ListenOptions, ParleyServer, ServerOptions } from './create-server.js';
export { createServer } from './create-server.js';
export type { Authenticate, Principal } from './principal.js';
export { isApprover } from './principal.js';
export type { CreatedApiKey } from './api-key-auth.js';
export { apiKeyAuth, bearerToken, createApiKey } from './api-key-auth.js';
export type { JwtAuthOptions, JwtKeySource } from './jwt-auth.js';
export { jwtAuth, principalOfClaims } from './jwt-auth.js';
export type {
  Approval,
  IdempotentRequest,
  ApiKeyRecord,
  ApiKeyStore,
  SessionLog,
  SessionPage,
  SessionRecord,
  StoredEvent,
} from './server-log.js';
export type { SqliteServerLogOptions } from './sqlite-server-log.js';
export { SqliteServerLog } from './sqlite-server-log.js';
export type { SessionSummary, WaitingCall } from './session-summary.js';
export type { Problem } from './problem.js';
export {
  BodyTooLargeError,
  ForbiddenError,
  EventNumberTakenError,
  IdempotencyKeyError,
  IdempotentRequestInterruptedError,
  InvalidRequestError,
  SessionNotFoundError,
  RateLimitedError,
  UnauthenticatedError,
} from './errors.js';
export type { PostgresRateLimitStore, RateLimit, RateLimitOptions } from './rate-limit.js';
export { memoryRateLimit, postgresRateLimit } from './rate-limit.js';
export type { PostgresServerLogOptions } from './postgres-server-log.js';
export { PostgresServerLog } from './postgres-server-log.js';
export type { PostgresLogMigration } from './postgres-log-migrations.js';
export { POSTGRES_LOG_MIGRATIONS } from './postgres-log-migrations.js';
export { RequestTimeoutError, ShuttingDownError } from './service-errors.js';
export { TooManyStreamsError } from './stream-errors.js';
export type { StreamLimitOptions } from './stream-limits.js';
export type { ClosingNote, ClosingReason, InterruptedOutcome } from './closing-frame.js';
