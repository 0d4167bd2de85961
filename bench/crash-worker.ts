// The process crash-sessions.ts kills. It drives HITL round trips on a set
// of sessions in one SQLite file until each has `rounds` completed replies:
// a new message (the model streams one write_file call, which parks), then
// an approval (the tool runs, the model answers "done"). It picks up
// whatever state the last killed process left. It prints one character per
// phase (M/m model stream, T/t tool, S/s save) so the parent knows what it
// interrupted, and records each tool run in side tables written by the tool
// body itself, and each approval the runner acknowledged.
//
//   node --conditions=@parley/source --import tsx bench/crash-worker.ts <db path> <sessions> <rounds> [steps|boundaries]
import { z } from 'zod';
import { SessionBusyError, Sessions, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, SessionStore, ToolCallBlock } from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import Database from 'better-sqlite3';

const [path = '', sessionCount = '0', roundCount = '0', schedule = 'steps'] = process.argv.slice(2);
const persist = schedule === 'boundaries' ? 'boundaries' : 'steps';
const SESSIONS = Number(sessionCount);
const ROUNDS = Number(roundCount);
const mark = (phase: string): void => void process.stdout.write(phase);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const side = new Database(path, { timeout: 10_000 });
const attempt = side.prepare('INSERT INTO tool_attempts (tool_call_id) VALUES (?)');
const execution = side.prepare('INSERT INTO tool_executions (tool_call_id) VALUES (?)');
const violation = side.prepare('INSERT INTO tool_violations (tool_call_id) VALUES (?)');
const acknowledged = side.prepare('INSERT INTO acks (session_id, tool_call_id) VALUES (?, ?)');

/** A model that streams slowly: one tool call on a reply's first call, then "done". */
class SlowModel implements ChatModel {
  readonly name = 'slow';
  constructor(private readonly sessionId: string) {}

  async *stream(request: ChatRequest): AsyncGenerator<ChatChunk> {
    mark('M');
    const round = request.messages.filter((message) => message.role === 'user').length;
    // The reply in progress is the last message: empty on its first model call.
    const reply = request.messages.at(-1);
    if (reply?.role === 'assistant' && reply.content.length === 0) {
      const id = `${this.sessionId}:${round}`;
      yield { type: 'tool_call_start', id, name: 'write_file' };
      for (const delta of ['{"path":"notes/', `${round}.txt",`, '"content":"hello"}']) {
        await pause(1);
        yield { type: 'tool_call_delta', id, delta };
      }
      yield { type: 'tool_call_end', id };
      yield { type: 'finish', finishedReason: 'tool_calls' };
    } else {
      for (const delta of ['do', 'ne']) {
        await pause(1);
        yield { type: 'text_delta', delta };
      }
      yield { type: 'finish', finishedReason: 'stop' };
    }
    mark('m');
  }
}

const writeFile = tool({
  name: 'write_file',
  description: 'Write a file.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: async (_input, context) => {
    mark('T');
    attempt.run(context.toolCallId);
    try {
      execution.run(context.toolCallId);
    } catch {
      violation.run(context.toolCallId);
    }
    await pause(2);
    mark('t');
    return 'written';
  },
});

const sqlite = new SqliteSessionStore({ path });
const store: SessionStore = {
  load: (sessionId) => sqlite.load(sessionId),
  async save(sessionId, state, expectedVersion, options) {
    mark('S');
    try {
      return await sqlite.save(sessionId, state, expectedVersion, options);
    } finally {
      mark('s');
    }
  },
  listAudit: (sessionId) => sqlite.listAudit(sessionId),
  renewLease: (sessionId, version, leaseUntil) => sqlite.renewLease(sessionId, version, leaseUntil),
};
const toolkit = new Toolkit([writeFile]);
// A short lease: a reply the killed process left running is held for at
// most this long (the steps here take milliseconds), then settled.
const LEASE_MS = 60;
const sessions = new Sessions({
  store,
  persist,
  lease: LEASE_MS,
  agent: (sessionId) => ({ model: new SlowModel(sessionId), toolkit }),
});

/** Moves one session a step on; false once it has all its rounds. */
async function step(sessionId: string): Promise<boolean> {
  const state = (await sessions.load(sessionId))?.state;
  const completed = (state?.context ?? []).filter(
    (message) => message.role === 'assistant' && message.finishedReason === 'completed',
  ).length;
  const reply = state?.reply ?? null;
  const message = state?.context.at(-1);
  const asking =
    reply === null || message === undefined || typeof message.content === 'string'
      ? []
      : message.content.filter(
          (block): block is ToolCallBlock => block.type === 'tool_call' && block.state === 'asking',
        );
  if (reply === null) {
    if (completed >= ROUNDS) return false;
    await sessions.reply(sessionId, `round ${completed + 1}`);
  } else if (asking.length === 0) {
    // A reply the last process left running: settle it and go on.
    await sessions.reply(sessionId);
  } else {
    const event = userConfirmResultEvent({
      replyId: reply.replyId,
      confirmResults: asking.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    await sessions.reply(sessionId, event, { approver: 'crash-worker' });
    for (const call of asking) acknowledged.run(sessionId, call.id);
  }
  return true;
}

/** `step`, or a short wait while the killed process's lease on the session lasts. */
async function stepOrWait(sessionId: string): Promise<boolean> {
  try {
    return await step(sessionId);
  } catch (error) {
    if (!(error instanceof SessionBusyError)) throw error;
    await pause(LEASE_MS / 4);
    return true;
  }
}

const ids = Array.from({ length: SESSIONS }, (_, index) => `session-${index}`);
process.stdout.write('ready\n');
let open = [...ids];
while (open.length > 0) {
  const next: string[] = [];
  for (const id of open) if (await stepOrWait(id)) next.push(id);
  open = next;
}
await sqlite.close();
side.close();
process.stdout.write('\ndone\n');
