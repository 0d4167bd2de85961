// The park/resume workload shared by bench/park-resume.ts and its history
// axis: a write_file call that needs approval, the model that makes it, and
// the two halves of a round trip through Sessions.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Sessions, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type {
  ChatRequest,
  PersistSchedule,
  SessionStore,
  UserConfirmResultEvent,
} from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';

/** The tool input of every round trip. */
export const INPUT = { path: 'notes/a.txt', content: 'hello' };

const writeFile = tool({
  name: 'write_file',
  description: 'Write a file.',
  input: z.object({ path: z.string(), content: z.string() }),
  execute: () => 'ok',
});
export const toolkit = new Toolkit([writeFile]);
/** The model of one call: a tool call on the reply's first model call, then "done". */
export function model(): ScriptedModel {
  const turn = (request: ChatRequest) => {
    const reply = request.messages.at(-1);
    return reply?.role === 'assistant' && reply.content.length === 0
      ? { toolCalls: [{ name: 'write_file', input: INPUT }] }
      : { text: 'done' };
  };
  return new ScriptedModel([turn], { repeatLast: true, record: false });
}
export const sessionsOn = (store: SessionStore, persist: PersistSchedule = 'steps'): Sessions =>
  new Sessions({ store, persist, agent: () => ({ name: 'assistant', model: model(), toolkit }) });

/** Parley's first half: the message arrives, the reply parks; gives the approval to send. */
export async function park(sessions: Sessions, sessionId: string): Promise<UserConfirmResultEvent> {
  let approval: UserConfirmResultEvent | undefined;
  for await (const event of sessions.replyStream(sessionId, 'Write the note')) {
    if (event.type === 'REQUIRE_USER_CONFIRM') {
      approval = userConfirmResultEvent({
        replyId: event.replyId,
        confirmResults: event.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
      });
    }
  }
  if (approval === undefined) throw new Error('the reply did not park');
  return approval;
}

export async function resume(
  sessions: Sessions,
  sessionId: string,
  approval: UserConfirmResultEvent,
) {
  const answer = await sessions.reply(sessionId, approval, { approver: 'bench' });
  if (answer.finishedReason !== 'completed') throw new Error('the reply did not complete');
}

export const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
export const ms = (value: number): string => `${value.toFixed(3)} ms`;
export const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

/** The bytes this process has handed to write(2) so far (Linux; NaN elsewhere). */
export function bytesWritten(): number {
  try {
    const match = /^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return match === null ? Number.NaN : Number(match[1]);
  } catch {
    return Number.NaN;
  }
}
