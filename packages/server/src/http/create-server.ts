import { setMaxListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import { Sessions } from '@parley/core';
import type { Logger, MayAnswer, SessionStore, SessionsOptions } from '@parley/core';
import { HTTPException } from 'hono/http-exception';
import { LRUCache } from 'lru-cache';
import { registerAguiRoutes } from '../agui/agui-route.js';
import { FrontendTools } from '../agui/frontend-tools.js';
import { InvalidRequestError, UnauthenticatedError } from '../errors.js';
import { EventFeed } from '../events/event-feed.js';
import { registerAgentRoutes } from './routes/agent-routes.js';
import { startExpiryTimer } from '../waiting/expiry-timer.js';
import { createMetrics } from './metrics.js';
import { memoryRateLimit } from './middleware/rate-limit.js';
import type { RateLimit, RateLimitOptions } from './middleware/rate-limit.js';
import type { Authenticate } from '../auth/principal.js';
import { wellFormedPrincipals } from '../auth/principal.js';
import { problemFor, problemOf, problemResponse } from './problem.js';
import { registerReplyRoutes } from './routes/reply-routes.js';
import type { ServerContext, ServerEnv } from './server-context.js';
import type { SessionLog } from '../log/session-log.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { bodySizeLimit, requestGuards } from './middleware/request-guards.js';
import { jsonDepthLimit } from './middleware/json-depth.js';
import { logRefusal } from './refusal-log.js';
import { httpTrace } from './middleware/http-trace.js';
import { securityHeaders } from './middleware/security-headers.js';
import { admitStreams } from './middleware/stream-guard.js';
import { StreamLimits } from '../events/stream-limits.js';
import type { StreamLimitOptions } from '../events/stream-limits.js';
import { SavedWaits } from '../waiting/saved-waits.js';
import { ShuttingDownError } from '../service-errors.js';
import { shutDown } from '../node/shutdown.js';
import { SqliteServerLog } from '../log/sqlite/sqlite-server-log.js';
import { registerStaticAssets } from '../node/static-assets.js';

/** The hold of an idempotency claim without `lease`: the core's default session lease. */
const DEFAULT_CLAIM_LEASE_MS = 30_000;

/**
 * Options of `createServer`. `store`: where sessions live. `log`: where the
 * server keeps who owns each session and each session's events (default: an
 * in-memory SQLite log, gone when the process ends; pass a
 * `SqliteServerLog` on the store's file to keep them). `agent`: the agent
 * options, as `Sessions` takes them. `authenticate`: finds the caller's
 * principal, or `null` (401). `mayAnswer`: as `Sessions` takes it; the
 * approver is the principal's id. `bodyLimit`: bytes (default 1 MiB).
 * `lease`: as `Sessions` takes it. `clock`: the time records are stamped
 * with. `pingMs`: between `: ping` comments on event streams (default
 * 15 000). `graceMs`: how long `close` lets running replies go on before
 * cancelling them (default 10 000). `expireEveryMs`: between sweeps that
 * settle parked replies past their deadline (`Sessions.expireDue`; default
 * 5 000, 0 for none; only on a store with `listDue`). `rateLimit`: at
 * most so many requests per principal per window, in memory, or a
 * `RateLimit` that counts elsewhere (`postgresRateLimit`: shared by the
 * nodes); default: no limit; over it, 429 with `Retry-After`.
 * `requestTimeoutMs`: how long a
 * request that is not an event stream may take before it gets 503
 * `request_timeout` (default 30 000, 0 for none; what it started goes on).
 * `metricsAccess`: `'public'` (default, as `/healthz`: a scraper on the
 * same network needs no credentials) or `'authenticated'` (`/metrics` asks
 * `authenticate` like `/v1/*`). `logger`: told of failures no request sees
 * (an expiry sweep, an event log or index write, a reply that failed after
 * its stream opened, a reply cancelled at shutdown); default: dropped.
 * `web`: serve the web UI at `/` (default true;
 * docs/decisions/web-0001-web-ui.md). `sandbox`: the sandbox the agent's
 * Bash tool runs commands in (`Bash.sandboxKind`), reported by `/healthz`.
 * `streamAuthCheckMs`: between checks of an open event stream's
 * credentials (default 30 000; 0 for none): once `authenticate` no longer
 * names the stream's principal (a key revoked, a token expired), the
 * stream ends with a `STREAM_CLOSED` frame saying why, and what it showed
 * goes on. `streamLimits`: how many event streams may be open per
 * principal (default 32) and in all (default 4 096); beyond, 429
 * `too_many_streams` with `Retry-After`. `maxJsonDepth`: how deeply a
 * request body may nest arrays and objects (default 64); deeper is 400
 * before anything runs. See docs/guides/serving.md, "Security".
 */
export type ServerOptions = {
  store: SessionStore;
  log?: SessionLog;
  agent: SessionsOptions['agent'];
  authenticate: Authenticate;
  mayAnswer?: MayAnswer;
  bodyLimit?: number;
  lease?: number;
  clock?: () => Date;
  pingMs?: number;
  graceMs?: number;
  expireEveryMs?: number;
  rateLimit?: RateLimitOptions | RateLimit;
  requestTimeoutMs?: number;
  metricsAccess?: 'public' | 'authenticated';
  logger?: Logger;
  web?: boolean;
  streamAuthCheckMs?: number;
  streamLimits?: StreamLimitOptions;
  maxJsonDepth?: number;
  sandbox?: 'bubblewrap' | 'none';
};

/** Where `listen` should bind. */
export type ListenOptions = { port?: number; host?: string };

/**
 * A Parley HTTP service (see HTTP.md): `fetch` is the Fetch API handler
 * (usable with any runtime), `listen` serves it on Node, `close` stops
 * accepting, lets running replies park or end for `graceMs`, cancels the
 * rest, and ends the event streams. `openapi` is the OpenAPI 3.1 document.
 */
export type ParleyServer = {
  fetch(request: Request): Promise<Response>;
  listen(options?: ListenOptions): Promise<{ url: string }>;
  close(): Promise<void>;
};

const ONE_MIB = 1024 * 1024;

/** How many session records found lately are kept for the requests that follow. */
const SESSION_RECORDS_KEPT = 4096;

const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The HTTP status and problem for errors hono itself raised (bad JSON, and the like). */
function httpProblem(error: HTTPException): Response {
  if (error.status === 400) {
    return problemResponse({
      problem: problemOf(400, 'invalid_request', error.message || 'Malformed request.'),
      headers: {},
    });
  }
  return problemResponse({
    problem: problemOf(error.status, 'http_error', error.message),
    headers: {},
  });
}

/**
 * Builds the HTTP service over `Sessions` on `options.store`.
 *
 * @example
 * const log = new SqliteServerLog({ path: 'parley.sqlite' });
 * const server = createServer({ store, log, agent, authenticate: apiKeyAuth(log) });
 * const { url } = await server.listen({ port: 8787, host: '127.0.0.1' });
 */
export function createServer(options: ServerOptions): ParleyServer {
  const log = options.log ?? new SqliteServerLog({ path: ':memory:' });
  const clock = options.clock ?? (() => new Date());
  const draining = new AbortController();
  const closing = new AbortController();
  const frontend = new FrontendTools(options.agent);
  // Every event stream listens for the close: as many listeners as streams.
  setMaxListeners(0, closing.signal);
  const logger = options.logger ?? silentLogger;
  const authenticate = wellFormedPrincipals(options.authenticate);
  const saved = new SavedWaits();
  const context: ServerContext = {
    sessions: new Sessions({
      store: saved.observe(options.store),
      agent: frontend.agent,
      clock,
      // Answers come from people over the network: they keep only suggested rules.
      keptRules: 'suggested',
      ...(options.mayAnswer === undefined ? {} : { mayAnswer: options.mayAnswer }),
      ...(options.lease === undefined ? {} : { lease: options.lease }),
    }),
    store: options.store,
    saved,
    log,
    records: new LRUCache({ max: SESSION_RECORDS_KEPT }),
    feed: new EventFeed(log, saved),
    clock,
    claimLeaseMs: options.lease ?? DEFAULT_CLAIM_LEASE_MS,
    running: new Set(),
    draining: draining.signal,
    closing: closing.signal,
    streams: new Set(),
    logger,
    pingMs: options.pingMs ?? 15_000,
    metrics: createMetrics(log),
    authenticate: authenticate,
    streamAuthCheckMs: options.streamAuthCheckMs ?? 30_000,
    streamLimits: new StreamLimits(options.streamLimits),
  };
  const limit = options.bodyLimit ?? ONE_MIB;
  const rateLimit =
    options.rateLimit === undefined || 'take' in options.rateLimit
      ? options.rateLimit
      : memoryRateLimit(options.rateLimit);
  const app = new OpenAPIHono<ServerEnv>({
    defaultHook: (result) => {
      if (result.success) return undefined;
      const issue = result.error.issues[0];
      const path = (issue?.path ?? []).map(String).join('.');
      throw new InvalidRequestError(
        path,
        `${path === '' ? '(body)' : path}: ${issue?.message ?? 'invalid'}`,
      );
    },
  });
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.res ?? httpProblem(error);
    const response = problemFor(error, clock());
    if (response.problem.status >= 500 && !(error instanceof ShuttingDownError)) {
      logger.error('A request failed.', { error: String(error) });
    }
    logRefusal(logger, c, response.problem);
    return problemResponse(response);
  });
  app.use('*', httpTrace());
  app.use('*', securityHeaders);
  app.notFound(() =>
    problemResponse({ problem: problemOf(404, 'not_found', 'No such route.'), headers: {} }),
  );
  app.use('*', async (_c, next) => {
    if (draining.signal.aborted) throw new ShuttingDownError();
    return next();
  });
  const guards = requestGuards({
    authenticate: authenticate,
    timeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  app.use('*', guards.timeout);
  const health =
    options.sandbox === undefined ? { ok: true } : { ok: true, sandbox: options.sandbox };
  app.get('/healthz', (c) => c.json(health));
  if (options.metricsAccess === 'authenticated') app.use('/metrics', guards.authenticated);
  app.get('/metrics', async () => {
    const { registry } = context.metrics;
    return new Response(await registry.metrics(), {
      headers: { 'Content-Type': registry.contentType },
    });
  });
  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Parley', version: '0.1.0', description: 'Parley over HTTP (HTTP.md).' },
  });
  app.use('/v1/*', async (c, next) => {
    if (c.req.path === '/v1/openapi.json') return next();
    const principal = await authenticate(c.req.raw);
    if (principal === null)
      throw new UnauthenticatedError(c.req.header('authorization') !== undefined);
    await rateLimit?.take(principal);
    c.set('principal', principal);
    return next();
  });
  app.use('/v1/*', async (c, next) => {
    // After authentication: a caller without credentials learns nothing about the path.
    if (!decodablePath(new URL(c.req.url).pathname)) {
      throw new InvalidRequestError('path', 'The path has a malformed %-escape.');
    }
    return next();
  });
  app.use('/v1/*', admitStreams(context));
  app.use('/v1/*', bodySizeLimit(limit));
  app.use('/v1/*', jsonDepthLimit(options.maxJsonDepth ?? 64));
  registerSessionRoutes(app, context);
  registerReplyRoutes(app, context);
  registerAguiRoutes(app, context, frontend);
  registerAgentRoutes(app, context, options.agent);
  if (options.web ?? true) registerStaticAssets(app);

  const expireEvery = options.expireEveryMs ?? 5_000;
  const expiry =
    expireEvery > 0 && options.store.listDue !== undefined
      ? startExpiryTimer(context, expireEvery)
      : undefined;

  let node: ServerType | undefined;
  return {
    fetch: async (request) => app.fetch(request),
    listen: ({ port = 8787, host = '127.0.0.1' } = {}) =>
      new Promise((resolve, reject) => {
        const server = serve({ fetch: app.fetch, port, hostname: host }, (info: AddressInfo) => {
          const shown = info.family === 'IPv6' ? `[${info.address}]` : info.address;
          resolve({ url: `http://${shown}:${info.port}` });
        });
        server.once('error', reject);
        node = server;
      }),
    close: () =>
      shutDown({
        context,
        node,
        expiry,
        graceMs: options.graceMs ?? 10_000,
        draining,
        closing,
      }),
  };
}

/** Whether every %-escape of `path` decodes (`%ZZ` and a lone `%E2` do not). */
function decodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
