import { createRoute } from '@hono/zod-openapi';
import { v7 as timeOrderedUuid } from 'uuid';
import { idempotencyClaim, idempotentOutcome } from '../../idempotency/idempotency.js';
import { summarize } from '../../waiting/session-summary.js';
import type { ServerApp, ServerContext } from '../server-context.js';
import { visibleSession } from '../server-context.js';
import {
  auditSchema,
  createdSessionSchema,
  idempotencyHeadersSchema,
  listQuerySchema,
  messagesSchema,
  problemResponses,
  sessionListSchema,
  sessionParamsSchema,
  sessionSummarySchema,
} from '../schemas.js';

/** How many sessions a page of `GET /v1/sessions` lists. */
const PAGE_SIZE = 50;

const json = <T>(schema: T, description: string) =>
  ({ description, content: { 'application/json': { schema } } }) as const;

const createSession = createRoute({
  method: 'post',
  path: '/v1/sessions',
  summary: 'Create a session owned by the caller',
  request: { headers: idempotencyHeadersSchema },
  responses: { 201: json(createdSessionSchema, 'Created'), 401: problemResponses[401] },
});

const listSessions = createRoute({
  method: 'get',
  path: '/v1/sessions',
  summary: "The caller's sessions, newest first",
  request: { query: listQuerySchema },
  responses: { 200: json(sessionListSchema, 'A page of sessions'), ...problemResponses },
});

const getSession = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}',
  summary: 'A session',
  request: { params: sessionParamsSchema },
  responses: { 200: json(sessionSummarySchema, 'The session'), ...problemResponses },
});

const getMessages = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/messages',
  summary: "A session's context",
  request: { params: sessionParamsSchema },
  responses: { 200: json(messagesSchema, 'The messages'), ...problemResponses },
});

const getAudit = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/audit',
  summary: "A session's audit trail",
  request: { params: sessionParamsSchema },
  responses: { 200: json(auditSchema, 'The audit records'), ...problemResponses },
});

/** Registers the routes that create, list and read sessions. */
export function registerSessionRoutes(app: ServerApp, context: ServerContext): void {
  app.openapi(createSession, async (c) => {
    const owner = c.get('principal').id;
    const claim = idempotencyClaim(
      owner,
      c.req.valid('header')['idempotency-key'],
      'create',
      null,
      context,
    );
    const record = await idempotentOutcome(
      context.log,
      claim,
      context,
      createdSessionSchema,
      async () => {
        // Time-ordered (UUIDv7, 74 random bits): the rows of sessions created
        // together sit together in every table keyed by session id, so a
        // commit touching several of them writes fewer pages.
        const created = {
          id: timeOrderedUuid(),
          owner,
          createdAt: context.clock().toISOString(),
        };
        await context.log.createSession(created);
        context.records.set(created.id, created);
        return created;
      },
    );
    return c.json(record, 201);
  });

  app.openapi(listSessions, async (c) => {
    const { cursor } = c.req.valid('query');
    const page = await context.log.listSessions(c.get('principal').id, {
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    const sessions = await Promise.all(
      page.sessions.map(async (record) =>
        summarize(
          record,
          (await context.store.load(record.id))?.state,
          await context.log.lastSeq(record.id),
        ),
      ),
    );
    return c.json({ sessions, next: page.next }, 200);
  });

  app.openapi(getSession, async (c) => {
    const { id } = c.req.valid('param');
    const record = await visibleSession(context, c.get('principal'), id);
    const stored = await context.store.load(id);
    return c.json(summarize(record, stored?.state, await context.log.lastSeq(id)), 200);
  });

  app.openapi(getMessages, async (c) => {
    const { id } = c.req.valid('param');
    await visibleSession(context, c.get('principal'), id);
    const stored = await context.store.load(id);
    return c.json({ messages: stored?.state.context ?? [] }, 200);
  });

  app.openapi(getAudit, async (c) => {
    const { id } = c.req.valid('param');
    await visibleSession(context, c.get('principal'), id);
    return c.json({ records: await context.sessions.audit(id) }, 200);
  });
}
