/**
 * Shared by the runner's tests: a store that records what each save
 * carried, the write_file workload of the park/resume round trip, and a
 * model that waits until it is let go.
 * Not exported from the package.
 */
import { z } from 'zod';
import { tool } from '../../tool/index.js';
import type { Tool } from '../../tool/index.js';
import type { AgentState } from '../../state/index.js';
import type { ToolCallBlock } from '../../message/index.js';
import type { ChatChunk, ChatModel, ChatRequest } from '../../model/index.js';
import type { AuditRecord } from '../audit-record.js';
import { InMemorySessionStore, emptySessionTables } from '../in-memory-session-store.js';
import type { InMemorySessionTables } from '../in-memory-session-store.js';
import type { SaveOptions } from '../session-store.js';

/** What one save carried. */
export type SaveSeen = {
  version: number;
  status: 'parked' | 'running' | 'idle';
  relaxed: boolean;
  decisions: string[];
};

/** An in-memory store that records every successful save. */
export class RecordingStore extends InMemorySessionStore {
  readonly saves: SaveSeen[] = [];
  readonly raw: InMemorySessionTables;

  constructor(tables: InMemorySessionTables = emptySessionTables()) {
    super({ tables });
    this.raw = tables;
  }

  override async save(
    sessionId: string,
    state: AgentState,
    expectedVersion: number,
    options: SaveOptions = {},
  ): Promise<number> {
    const status = state.reply?.status ?? 'idle';
    const decisions = (options.audit ?? []).map((record: AuditRecord) => record.decision);
    const version = await super.save(sessionId, state, expectedVersion, options);
    this.saves.push({ version, status, relaxed: options.relaxed === true, decisions });
    return version;
  }
}

/** A write_file tool that counts its runs by tool call id. */
export function writeFileTool(
  runs: Map<string, number>,
  options: { idempotent?: boolean } = {},
): Tool<{ path: string; content: string }> {
  return tool({
    name: 'write_file',
    description: 'Write a file.',
    input: z.object({ path: z.string(), content: z.string() }),
    idempotent: options.idempotent ?? false,
    execute: ({ path }, context) => {
      runs.set(context.toolCallId, (runs.get(context.toolCallId) ?? 0) + 1);
      return `wrote ${path}`;
    },
  });
}

/** The parked reply's id and its asking calls, from a stored state. */
export function parkedCalls(state: AgentState | undefined): {
  replyId: string;
  calls: ToolCallBlock[];
} {
  const reply = state?.reply;
  const message = state?.context.at(-1);
  if (reply?.status !== 'parked' || message === undefined || typeof message.content === 'string') {
    throw new Error('The session has no parked reply.');
  }
  const calls = message.content.filter(
    (block): block is ToolCallBlock => block.type === 'tool_call' && block.state === 'asking',
  );
  return { replyId: reply.replyId, calls };
}

/**
 * A model that answers "done" once let go: `started` resolves when a call
 * waits, `release` lets the waiting calls answer. Aborting a call's signal
 * ends it with an error, as a provider's client does.
 */
export class GatedModel implements ChatModel {
  readonly name = 'gated';
  private opened: () => void = () => undefined;
  private gate: () => void = () => undefined;
  readonly started = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  private readonly released = new Promise<void>((resolve) => {
    this.gate = resolve;
  });

  release(): void {
    this.gate();
  }

  async *stream(_request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    this.opened();
    await new Promise<void>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(new Error('The request was aborted.')), {
        once: true,
      });
      void this.released.then(resolve);
    });
    yield { type: 'text_delta', delta: 'done' };
    yield { type: 'finish', finishedReason: 'stop' };
  }
}
