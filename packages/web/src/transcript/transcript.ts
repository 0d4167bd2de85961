import type { AgentEvent, ToolResultState } from '@parley/core';
import type { StoredMessage } from '../api/client.js';

/** A tool call as the transcript shows it: its input, and its result once there is one. */
export type CallView = {
  id: string;
  name: string;
  input: string;
  /** What it waits for, while the reply is parked on it. */
  waiting?: 'confirm' | 'external';
  /** Why it asks, as the permission decision said (kept with `REQUIRE_USER_CONFIRM`). */
  ask?: string;
  result?: { state: ToolResultState; text: string };
};

/** One block of a reply. */
export type ReplyBlock =
  | { kind: 'text'; id: string; text: string }
  | { kind: 'thinking'; id: string; text: string; redacted?: true }
  | { kind: 'hint'; id: string; text: string }
  | { kind: 'data'; id: string; mediaType: string }
  | { kind: 'call'; id: string; call: CallView };

/** A user's message. */
export type UserEntry = { kind: 'user'; id: string; name: string; text: string };

/**
 * An assistant reply. `source` says whether its blocks came from the stored
 * message (until its events arrive) or from its events.
 */
export type ReplyEntry = {
  kind: 'reply';
  id: string;
  source: 'stored' | 'events';
  status: 'running' | 'parked' | 'done';
  finishedReason?: string;
  error?: string;
  blocks: ReplyBlock[];
};

/** The transcript: the entries in order, and the number of the last event folded in. */
export type Transcript = { entries: (UserEntry | ReplyEntry)[]; lastSeq: number };

/** An empty transcript. */
export const emptyTranscript: Transcript = { entries: [], lastSeq: 0 };

function textOf(content: StoredMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) =>
      block['type'] === 'text' && typeof block['text'] === 'string' ? block.text : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

function storedBlocks(content: StoredMessage['content']): ReplyBlock[] {
  if (typeof content === 'string') return [{ kind: 'text', id: 'text-0', text: content }];
  return content.flatMap((block, index): ReplyBlock[] => {
    const id = `stored-${index}`;
    const field = (name: string) => (typeof block[name] === 'string' ? String(block[name]) : '');
    switch (block['type']) {
      case 'text':
        return [{ kind: 'text', id, text: field('text') }];
      case 'thinking':
        return typeof block['redactedData'] === 'string'
          ? [{ kind: 'thinking', id, text: '', redacted: true }]
          : [{ kind: 'thinking', id, text: field('thinking') }];
      case 'tool_call':
        return [
          {
            kind: 'call',
            id: field('id'),
            call: { id: field('id'), name: field('name'), input: field('input') },
          },
        ];
      default:
        return [];
    }
  });
}

/**
 * The transcript of a session's stored messages: user messages as they
 * are, assistant messages as placeholders that their events (replayed
 * from the first) fill in. Stored text stands in for a reply whose events
 * never come (an older session).
 */
export function transcriptOfMessages(messages: readonly StoredMessage[]): Transcript {
  const entries = messages.flatMap((message): (UserEntry | ReplyEntry)[] => {
    if (message.role === 'user') {
      return [{ kind: 'user', id: message.id, name: message.name, text: textOf(message.content) }];
    }
    if (message.role !== 'assistant') return [];
    return [
      {
        kind: 'reply',
        id: message.id,
        source: 'stored',
        status: message.finishedReason === null ? 'parked' : 'done',
        blocks: storedBlocks(message.content),
      },
    ];
  });
  return { entries, lastSeq: 0 };
}

/** Adds a message the person just sent, before its reply's events arrive. */
export function withUserMessage(transcript: Transcript, entry: UserEntry): Transcript {
  return { ...transcript, entries: [...transcript.entries, entry] };
}

/** Takes back an entry (a message the server refused). */
export function withoutEntry(transcript: Transcript, id: string): Transcript {
  return { ...transcript, entries: transcript.entries.filter((entry) => entry.id !== id) };
}

function updateReply(
  transcript: Transcript,
  replyId: string,
  change: (reply: ReplyEntry) => ReplyEntry,
): Transcript['entries'] {
  let found = false;
  const entries = transcript.entries.map((entry) => {
    if (entry.kind !== 'reply' || entry.id !== replyId) return entry;
    found = true;
    const fresh: ReplyEntry =
      entry.source === 'stored' ? { ...entry, source: 'events', blocks: [] } : entry;
    return change(fresh);
  });
  if (found) return entries;
  const created: ReplyEntry = {
    kind: 'reply',
    id: replyId,
    source: 'events',
    status: 'running',
    blocks: [],
  };
  return [...entries, change(created)];
}

function appendTo(blocks: ReplyBlock[], id: string, delta: string): ReplyBlock[] {
  return blocks.map((block) =>
    block.id === id && (block.kind === 'text' || block.kind === 'thinking')
      ? { ...block, text: block.text + delta }
      : block,
  );
}

function addBlock(blocks: ReplyBlock[], block: ReplyBlock): ReplyBlock[] {
  return blocks.some((existing) => existing.id === block.id) ? blocks : [...blocks, block];
}

function changeCall(
  blocks: ReplyBlock[],
  id: string,
  change: (call: CallView) => CallView,
): ReplyBlock[] {
  return blocks.map((block) =>
    block.kind === 'call' && block.id === id ? { ...block, call: change(block.call) } : block,
  );
}

function askOf(event: AgentEvent, toolCallId: string): string | undefined {
  const asks = event.metadata['permissionAsks'];
  if (typeof asks !== 'object' || asks === null || !(toolCallId in asks)) return undefined;
  const ask: unknown = Object.entries(asks).find(([key]) => key === toolCallId)?.[1];
  if (typeof ask !== 'object' || ask === null || !('message' in ask)) return undefined;
  const reason =
    'decisionReason' in ask && typeof ask.decisionReason === 'string'
      ? ` (${ask.decisionReason})`
      : '';
  return typeof ask.message === 'string' ? ask.message + reason : undefined;
}

function foldBlocks(blocks: ReplyBlock[], event: AgentEvent): ReplyBlock[] {
  switch (event.type) {
    case 'TEXT_BLOCK_START':
      return addBlock(blocks, { kind: 'text', id: event.blockId, text: '' });
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
      return appendTo(blocks, event.blockId, event.delta);
    case 'THINKING_BLOCK_START':
      return addBlock(
        blocks,
        event.redacted === true
          ? { kind: 'thinking', id: event.blockId, text: '', redacted: true }
          : { kind: 'thinking', id: event.blockId, text: '' },
      );
    case 'HINT_BLOCK':
      return addBlock(blocks, {
        kind: 'hint',
        id: event.blockId,
        text:
          typeof event.hint === 'string'
            ? event.hint
            : event.hint
                .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
                .join(''),
      });
    case 'DATA_BLOCK_START':
      return addBlock(blocks, { kind: 'data', id: event.blockId, mediaType: event.mediaType });
    case 'TOOL_CALL_START':
      return addBlock(blocks, {
        kind: 'call',
        id: event.toolCallId,
        call: { id: event.toolCallId, name: event.toolCallName, input: '' },
      });
    case 'TOOL_CALL_DELTA':
      return changeCall(blocks, event.toolCallId, (call) => ({
        ...call,
        input: call.input + event.delta,
      }));
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION': {
      const waiting = event.type === 'REQUIRE_USER_CONFIRM' ? 'confirm' : 'external';
      return event.toolCalls.reduce((current, toolCall) => {
        const ask = askOf(event, toolCall.id);
        const known = addBlock(current, {
          kind: 'call',
          id: toolCall.id,
          call: { id: toolCall.id, name: toolCall.name, input: toolCall.input },
        });
        return changeCall(known, toolCall.id, (call) => ({
          ...call,
          name: toolCall.name,
          input: toolCall.input,
          waiting,
          ...(ask === undefined ? {} : { ask }),
        }));
      }, blocks);
    }
    case 'TOOL_RESULT_START':
      return changeCall(blocks, event.toolCallId, ({ waiting: _waiting, ...call }) => ({
        ...call,
        result: { state: 'running', text: '' },
      }));
    case 'TOOL_RESULT_TEXT_DELTA':
      return changeCall(blocks, event.toolCallId, ({ waiting: _waiting, ...call }) => ({
        ...call,
        result: {
          state: call.result?.state ?? 'running',
          text: (call.result?.text ?? '') + event.delta,
        },
      }));
    case 'TOOL_RESULT_DATA_DELTA':
      return blocks;
    case 'TOOL_RESULT_END':
      return changeCall(blocks, event.toolCallId, ({ waiting: _waiting, ...call }) => ({
        ...call,
        result: { state: event.state, text: call.result?.text ?? '' },
      }));
    case 'REPLY_START':
    case 'REPLY_END':
    case 'MODEL_CALL_START':
    case 'MODEL_CALL_END':
    case 'TEXT_BLOCK_END':
    case 'THINKING_BLOCK_END':
    case 'DATA_BLOCK_DELTA':
    case 'DATA_BLOCK_END':
    case 'TOOL_CALL_END':
    case 'EXCEED_MAX_ITERS':
      return blocks;
    default:
      return assertNever(event);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected event ${JSON.stringify(value)}`);
}

function statusAfter(reply: ReplyEntry, event: AgentEvent): ReplyEntry {
  switch (event.type) {
    case 'REPLY_START':
      return { ...reply, status: 'running' };
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return { ...reply, status: 'parked' };
    case 'REPLY_END':
      return {
        ...reply,
        status: 'done',
        finishedReason: event.finishedReason,
        ...(event.error === undefined ? {} : { error: event.error.message }),
      };
    default:
      return reply.status === 'parked' && event.type === 'TOOL_RESULT_START'
        ? { ...reply, status: 'running' }
        : reply;
  }
}

/**
 * Folds one numbered event into the transcript. An event numbered at or
 * below the last one folded is ignored, so a replay after a reconnect can
 * never show an event twice.
 */
export function foldEvent(transcript: Transcript, seq: number, event: AgentEvent): Transcript {
  if (seq <= transcript.lastSeq) return transcript;
  const entries = updateReply(transcript, event.replyId, (reply) =>
    statusAfter({ ...reply, blocks: foldBlocks(reply.blocks, event) }, event),
  );
  return { entries, lastSeq: seq };
}

/** Whether a reply of the transcript is running (so "Stop" is offered). */
export function isRunning(transcript: Transcript): boolean {
  return transcript.entries.some((entry) => entry.kind === 'reply' && entry.status === 'running');
}
