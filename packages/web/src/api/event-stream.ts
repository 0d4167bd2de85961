import type { AgentEvent } from '@parley/core';
import { createParser } from 'eventsource-parser';
import { apiErrorOf } from './client.js';
import type { ApiError } from './client.js';

/** One frame of a session's event stream: the event and its number in the session. */
export type NumberedEvent = { seq: number; event: AgentEvent };

const eventTypes: ReadonlySet<string> = new Set<AgentEvent['type']>([
  'REPLY_START',
  'REPLY_END',
  'MODEL_CALL_START',
  'MODEL_CALL_END',
  'TEXT_BLOCK_START',
  'TEXT_BLOCK_DELTA',
  'TEXT_BLOCK_END',
  'THINKING_BLOCK_START',
  'THINKING_BLOCK_DELTA',
  'THINKING_BLOCK_END',
  'DATA_BLOCK_START',
  'DATA_BLOCK_DELTA',
  'DATA_BLOCK_END',
  'HINT_BLOCK',
  'TOOL_CALL_START',
  'TOOL_CALL_DELTA',
  'TOOL_CALL_END',
  'TOOL_RESULT_START',
  'TOOL_RESULT_TEXT_DELTA',
  'TOOL_RESULT_DATA_DELTA',
  'TOOL_RESULT_END',
  'EXCEED_MAX_ITERS',
  'REQUIRE_USER_CONFIRM',
  'REQUIRE_EXTERNAL_EXECUTION',
]);

/**
 * Whether a frame's data is an `AgentEvent`: the server sends exactly the
 * JSON the library emits, so its `type` and `replyId` are what is checked;
 * an unknown type (a newer server) is skipped rather than misread.
 */
export function isAgentEvent(value: unknown): value is AgentEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    typeof value.type === 'string' &&
    eventTypes.has(value.type) &&
    'replyId' in value &&
    typeof value.replyId === 'string'
  );
}

/** What `followSession` reports besides events. */
export type StreamListener = {
  onEvent: (numbered: NumberedEvent) => void;
  /** The stream is (re)connected, or dropped and waiting to reconnect. */
  onConnection?: (state: 'open' | 'reconnecting') => void;
  /** A refusal that reconnecting cannot fix (401, 404): the stream stops. */
  onFatal?: (error: ApiError) => void;
};

/** Options of `followSession`. */
export type FollowOptions = {
  origin: string;
  token: string;
  sessionId: string;
  /** Start after this event number (0: from the first). */
  after: number;
  signal: AbortSignal;
  /** Milliseconds before a reconnect (default 1 000). */
  retryMs?: number;
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Follows `GET /v1/sessions/:id/events` until `signal` aborts. After a drop
 * (network, server restart) it reconnects with `Last-Event-ID`: the number
 * of the last event it passed on, so the server sends each later event
 * once, and no earlier one again. `fetch` rather than `EventSource`, since
 * `EventSource` cannot send the bearer token.
 */
export async function followSession(options: FollowOptions, listener: StreamListener) {
  const { origin, token, sessionId, signal } = options;
  let last = options.after;
  while (!signal.aborted) {
    try {
      const response = await fetch(
        `${origin}/v1/sessions/${encodeURIComponent(sessionId)}/events`,
        {
          headers: {
            Authorization: `Bearer ${token}`,
            Accept: 'text/event-stream',
            'Last-Event-ID': String(last),
          },
          signal,
        },
      );
      if (response.status === 401 || response.status === 403 || response.status === 404) {
        listener.onFatal?.(await apiErrorOf(response));
        return;
      }
      if (!response.ok || response.body === null) throw await apiErrorOf(response);
      listener.onConnection?.('open');
      const parser = createParser({
        onEvent: (frame) => {
          const seq = Number(frame.id);
          if (!Number.isSafeInteger(seq) || seq <= last) return;
          const data: unknown = JSON.parse(frame.data);
          last = seq;
          if (isAgentEvent(data)) listener.onEvent({ seq, event: data });
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        parser.feed(chunk.value);
      }
    } catch {
      // A drop: reconnect below, from the last event passed on.
    }
    if (signal.aborted) return;
    listener.onConnection?.('reconnecting');
    await sleep(options.retryMs ?? 1_000, signal);
  }
}
