// Guide example: agents on stored sessions. Two "web handlers" share
// nothing but the store: one takes a message and reports what needs
// approval, the other applies a person's answer. A second answer to the
// same question is refused, so is an answer from outside the team, the
// trail says who decided what, and an unanswered question expires.
import { z } from 'zod';
import {
  AnswerNotAllowedError,
  ConcurrentResumeError,
  ReplyExpiredError,
  Sessions,
  StaleReplyError,
  Toolkit,
  textOf,
  tool,
  userConfirmResultEvent,
} from '@parley/core';
import type { AuditRecord, ToolCallBlock } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { SqliteSessionStore } from '@parley/store-sqlite';

export async function sessionsExample(path = ':memory:'): Promise<{
  asked: string[];
  answer: string;
  outsider: string;
  secondAnswer: string;
  trail: Pick<AuditRecord, 'decision' | 'approver'>[];
  expired: string[];
  lateAnswer: string;
}> {
  const written: string[] = [];
  const writeNote = tool({
    name: 'write_note',
    description: 'Write a note to the notebook.',
    input: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path: notePath }) => {
      written.push(notePath);
      return `Wrote ${notePath}`;
    },
  });
  const model = new ScriptedModel(
    [
      (request) =>
        request.messages.at(-1)?.content.length === 0
          ? { toolCalls: [{ name: 'write_note', input: { path: 'notes/a.txt', content: 'hi' } }] }
          : { text: 'The note is written.' },
    ],
    { repeatLast: true },
  );
  let now = new Date('2030-01-01T09:00:00.000Z');
  const store = new SqliteSessionStore({ path });
  const sessions = new Sessions({
    store,
    clock: () => now,
    agent: { name: 'assistant', model, toolkit: new Toolkit([writeNote]), parkTimeout: 3_600_000 },
    // Only the team may answer; your auth says who the approver is.
    mayAnswer: ({ approver }) => approver?.endsWith('@example.com') === true,
  });

  // Handler 1: a message arrives; the reply parks and is saved before we hear why.
  async function onMessage(sessionId: string, text: string) {
    const questions: { replyId: string; toolCall: ToolCallBlock }[] = [];
    for await (const event of sessions.replyStream(sessionId, text)) {
      if (event.type === 'REQUIRE_USER_CONFIRM') {
        for (const toolCall of event.toolCalls)
          questions.push({ replyId: event.replyId, toolCall });
      }
    }
    return questions;
  }

  // Handler 2: a person answers. Any process may serve it; the approver comes from your auth.
  async function onApproval(
    sessionId: string,
    replyId: string,
    toolCall: ToolCallBlock,
    user: string,
  ) {
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: [{ confirmed: true, toolCall }],
    });
    try {
      return textOf(await sessions.reply(sessionId, event, { approver: user }));
    } catch (error) {
      if (error instanceof StaleReplyError || error instanceof ConcurrentResumeError) {
        return 'already answered';
      }
      if (error instanceof ReplyExpiredError) return 'too late';
      if (error instanceof AnswerNotAllowedError) return 'not yours to answer';
      throw error;
    }
  }

  const [question] = await onMessage('s1', 'Write a note');
  if (question === undefined) throw new Error('expected a question');
  const outsider = await onApproval(
    's1',
    question.replyId,
    question.toolCall,
    'eve@elsewhere.test',
  );
  const answer = await onApproval('s1', question.replyId, question.toolCall, 'ada@example.com');
  // The same answer again, from an old tab: refused, and the tool does not run twice.
  const secondAnswer = await onApproval(
    's1',
    question.replyId,
    question.toolCall,
    'bob@example.com',
  );
  const trail = (await sessions.audit('s1')).map(({ decision, approver }) => ({
    decision,
    approver,
  }));

  // A question nobody answers in time: a service sweeps it on a timer.
  const [unanswered] = await onMessage('s2', 'Write another note');
  if (unanswered === undefined) throw new Error('expected a question');
  now = new Date('2030-01-01T10:30:00.000Z');
  const { expired } = await sessions.expireDue();
  const lateAnswer = await onApproval(
    's2',
    unanswered.replyId,
    unanswered.toolCall,
    'ada@example.com',
  );

  await store.close();
  return {
    asked: [question.toolCall.name],
    answer,
    outsider,
    secondAnswer,
    trail,
    expired,
    lateAnswer,
  };
}
