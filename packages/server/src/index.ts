/**
 * @parley/server: Parley over HTTP. Sessions, replies and their answers as
 * JSON routes, events as server-sent events numbered per session, owners
 * and approvers (see HTTP.md and docs/guides/serving.md).
 */
export type { ListenOptions, ParleyServer, ServerOptions } from './http/create-server.js';
export { createServer } from './http/create-server.js';
export type { Authenticate, Principal } from './auth/principal.js';
export { isApprover } from './auth/principal.js';
export type { CreatedApiKey } from './auth/api-key-auth.js';
export { apiKeyAuth, bearerToken, createApiKey } from './auth/api-key-auth.js';
export type { JwtAuthOptions, JwtKeySource } from './auth/jwt-auth.js';
export { jwtAuth, principalOfClaims } from './auth/jwt-auth.js';
export type {
  Approval,
  IdempotentRequest,
  ApiKeyRecord,
  ApiKeyStore,
  SessionLog,
  SessionPage,
  SessionRecord,
  StoredEvent,
} from './log/session-log.js';
export type { SqliteServerLogOptions } from './log/sqlite/sqlite-server-log.js';
export { SqliteServerLog } from './log/sqlite/sqlite-server-log.js';
export type { SessionSummary, WaitingCall } from './waiting/session-summary.js';
export type { Problem } from './http/problem.js';
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
export type {
  PostgresRateLimitStore,
  RateLimit,
  RateLimitOptions,
} from './http/middleware/rate-limit.js';
export { memoryRateLimit, postgresRateLimit } from './http/middleware/rate-limit.js';
export type { PostgresServerLogOptions } from './log/postgres/postgres-server-log.js';
export { PostgresServerLog } from './log/postgres/postgres-server-log.js';
export type { PostgresLogMigration } from './log/postgres/postgres-log-migrations.js';
export { POSTGRES_LOG_MIGRATIONS } from './log/postgres/postgres-log-migrations.js';
export { RequestTimeoutError, ShuttingDownError } from './service-errors.js';
export { TooManyStreamsError } from './events/stream-errors.js';
export type { StreamLimitOptions } from './events/stream-limits.js';
export type { ClosingNote, ClosingReason, InterruptedOutcome } from './events/closing-frame.js';
