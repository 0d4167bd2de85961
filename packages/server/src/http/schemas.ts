import { z } from '@hono/zod-openapi';

/** The session id in a route's path. */
export const sessionParamsSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'id', in: 'path' }, example: '7d1c0b0e-…' }),
});

/** The body of `POST /v1/sessions/:id/replies`. */
export const replyBodySchema = z
  .object({
    input: z.union([z.string(), z.record(z.string(), z.unknown())]).openapi({
      description:
        'A text, a Msg, or an input event (USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, USER_INTERRUPT).',
    }),
  })
  .openapi('ReplyBody');

const idempotencyKey = 'The same key and body give the first outcome again; another body, 422.';

/** The headers a POST may carry: `Idempotency-Key` makes a retry safe. */
export const idempotencyHeadersSchema = z.object({
  'idempotency-key': z.string().min(1).max(200).optional().openapi({ description: idempotencyKey }),
});

const lastEventId = 'Replay events numbered above this (digits only).';

/** The headers of the event stream: `Last-Event-ID`, the number of the last event seen. */
export const eventsHeadersSchema = z.object({
  'last-event-id': z.string().optional().openapi({ description: lastEventId }),
});

/** `?after=` of the event stream, the same as `Last-Event-ID`. */
export const eventsQuerySchema = z.object({
  after: z.string().optional().openapi({ description: 'Replay events numbered above this.' }),
});

/** `?cursor=` of the session list. */
export const listQuerySchema = z.object({
  cursor: z.string().optional(),
});

/** A session as `POST /v1/sessions` creates it. */
export const createdSessionSchema = z
  .object({ id: z.string(), owner: z.string(), createdAt: z.string() })
  .openapi('CreatedSession');

const toolCallSchema = z
  .object({
    type: z.literal('tool_call'),
    id: z.string(),
    name: z.string(),
    input: z.string(),
    state: z.string(),
    suggestedRules: z.array(z.record(z.string(), z.unknown())),
    awaiting: z.enum(['confirm', 'external']),
  })
  .openapi('WaitingCall');

/** HTTP.md's `SessionSummary`. */
export const sessionSummarySchema = z
  .object({
    id: z.string(),
    owner: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    status: z.enum(['idle', 'running', 'waiting']),
    lastSeq: z.number().int(),
    waiting: z
      .object({
        replyId: z.string(),
        deadline: z.string().nullable(),
        toolCalls: z.array(toolCallSchema),
      })
      .nullable(),
  })
  .openapi('SessionSummary');

/** A page of the caller's sessions. */
export const sessionListSchema = z
  .object({ sessions: z.array(sessionSummarySchema), next: z.string().nullable() })
  .openapi('SessionList');

const messageSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(['user', 'assistant', 'system']),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
    finishedReason: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    createdAt: z.string().optional(),
  })
  .openapi('Msg');

/** A reply's final message (or the waiting notice). */
export const messageResultSchema = z.object({ message: messageSchema }).openapi('MessageResult');

/** A session's context. */
export const messagesSchema = z.object({ messages: z.array(messageSchema) }).openapi('Messages');

/** A session's audit trail. */
export const auditSchema = z
  .object({ records: z.array(z.record(z.string(), z.unknown())) })
  .openapi('AuditRecords');

/** Every waiting call the caller may answer. */
export const approvalsSchema = z
  .object({
    approvals: z.array(
      z.object({
        sessionId: z.string(),
        replyId: z.string(),
        deadline: z.string().nullable(),
        toolCall: toolCallSchema,
      }),
    ),
  })
  .openapi('Approvals');

/** The body of every error (`application/problem+json`). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    outcome: z.enum(['ran', 'not_run', 'unknown']).optional(),
  })
  .openapi('Problem');

/** The error responses every authenticated route documents. */
export const problemResponses = {
  400: {
    description:
      'Malformed JSON, input that fails validation, or a body nesting deeper than the limit',
    content: { 'application/problem+json': { schema: problemSchema } },
  },
  401: {
    description: 'No or bad credentials',
    content: { 'application/problem+json': { schema: problemSchema } },
  },
  404: {
    description: 'No such session, or not visible to the caller',
    content: { 'application/problem+json': { schema: problemSchema } },
  },
  429: {
    description:
      'Rate limited, or (on event streams) too many open; retry after Retry-After seconds',
    content: { 'application/problem+json': { schema: problemSchema } },
  },
} as const;
