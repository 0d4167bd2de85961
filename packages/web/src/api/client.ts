import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

/** A session as the server summarizes it (HTTP.md's `SessionSummary`). */
export type SessionSummary = components['schemas']['SessionSummary'];
/** A tool call a parked reply waits on. */
export type WaitingCall = components['schemas']['WaitingCall'];
/** A waiting call the caller may answer, from the approvals inbox. */
export type Approval = components['schemas']['Approvals']['approvals'][number];
/** A tool's name, description and input JSON Schema. */
export type ToolInfo = components['schemas']['Tools']['tools'][number];
/** A permission rule of a session. */
export type Rule = components['schemas']['PermissionRule'];
/** A session's permission mode and rules. */
export type SessionPermission = components['schemas']['SessionPermission'];
/** Which rule to revoke: its tool, content and behaviour. */
export type RevokeRule = components['schemas']['RevokeRuleBody'];
/** One message of a session's context. */
export type StoredMessage = components['schemas']['Msg'];
/** A reply body's `input`: a text, a message, or an input event. */
export type ReplyInput = components['schemas']['ReplyBody']['input'];

/** An error response of the server (`application/problem+json`), as an exception. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

/** The `ApiError` of a response and its parsed body (a problem, or anything else). */
export function problemError(response: Response, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'code' in body && 'detail' in body) {
    return new ApiError(response.status, String(body.code), String(body.detail));
  }
  return new ApiError(response.status, 'http_error', `${response.status} ${response.statusText}`);
}

/** Reads a problem body into an `ApiError` (or a plain one when the body is not a problem). */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => undefined);
  return problemError(response, body);
}

/**
 * The typed client of the HTTP API: openapi-fetch over the types generated
 * from the server's OpenAPI document (src/api/openapi.ts), with the tab's
 * bearer token on every request. `origin` is where the server is (the
 * page's own origin in the browser).
 */
export function createApi(token: string, origin: string) {
  const client = createClient<paths>({ baseUrl: origin });
  client.use({
    onRequest: ({ request }) => {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  });
  const authorization = { Authorization: `Bearer ${token}` };

  /** The data of a response, or its problem thrown as an `ApiError`. */
  async function unwrap<T>(
    call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T> {
    const { data, error, response } = await call;
    if (response.ok && data !== undefined) return data;
    throw problemError(response, error);
  }

  /** POSTs `input` as a reply to the session; a refusal is thrown as an `ApiError`. */
  async function post(sessionId: string, input: ReplyInput, stream: boolean): Promise<void> {
    const response = await fetch(`${origin}/v1/sessions/${encodeURIComponent(sessionId)}/replies`, {
      method: 'POST',
      headers: {
        ...authorization,
        'Content-Type': 'application/json',
        ...(stream ? { Accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify({ input }),
    });
    if (!response.ok) throw await apiErrorOf(response);
    await response.body?.cancel();
  }

  /**
   * POSTs a reply (a message or an answer) and lets go once the server has
   * accepted it: the reply runs on, and its events arrive on the session's
   * event stream. A refusal (409 already answered, 403, 410, …) is thrown.
   */
  const postReply = (sessionId: string, input: ReplyInput): Promise<void> =>
    post(sessionId, input, true);

  /**
   * POSTs an answer and waits until the reply it resumes has parked again
   * or ended (the JSON form of the route answers only then), so a next
   * answer to the same reply finds it parked rather than running.
   */
  const answerAndWait = (sessionId: string, input: ReplyInput): Promise<void> =>
    post(sessionId, input, false);

  /** Which sandbox the server's Bash runs commands in (`/healthz`); undefined when it does not say. */
  async function sandbox(): Promise<'bubblewrap' | 'none' | undefined> {
    const response = await fetch(`${origin}/healthz`);
    const body: unknown = response.ok ? await response.json() : undefined;
    const kind =
      typeof body === 'object' && body !== null && 'sandbox' in body ? body.sandbox : undefined;
    return kind === 'bubblewrap' || kind === 'none' ? kind : undefined;
  }

  const path = (id: string) => ({ params: { path: { id } } });
  return {
    token,
    origin,
    listSessions: (cursor?: string) =>
      unwrap(
        client.GET('/v1/sessions', {
          params: { query: cursor === undefined ? {} : { cursor } },
        }),
      ),
    createSession: () => unwrap(client.POST('/v1/sessions', {})),
    session: (id: string) => unwrap(client.GET('/v1/sessions/{id}', path(id))),
    messages: (id: string) => unwrap(client.GET('/v1/sessions/{id}/messages', path(id))),
    audit: (id: string) => unwrap(client.GET('/v1/sessions/{id}/audit', path(id))),
    tools: (id: string) => unwrap(client.GET('/v1/sessions/{id}/tools', path(id))),
    permission: (id: string) => unwrap(client.GET('/v1/sessions/{id}/permission', path(id))),
    approvals: () => unwrap(client.GET('/v1/approvals', {})),
    cancel: (id: string) => unwrap(client.POST('/v1/sessions/{id}/cancel', path(id))),
    revokeRule: (id: string, rule: RevokeRule) =>
      unwrap(client.POST('/v1/sessions/{id}/permission/revoke', { ...path(id), body: rule })),
    postReply,
    answerAndWait,
    sandbox,
  };
}

/** The typed client `createApi` makes. */
export type Api = ReturnType<typeof createApi>;
