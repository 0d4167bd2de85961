import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AskUser, tool, userInterruptEvent } from '../src/index.js';
import type { Agent, ToolCallState } from '../src/index.js';
import {
  allowDeploy,
  asked,
  collect,
  confirm,
  deploy,
  external,
  makeFetch,
  makeWriteNote,
  modes,
  replyIdOf,
  resultFor,
  setup,
  storedCall,
  storedResults,
  submitted,
} from './support.js';

/** A tool that records the state of its own call (read from the agent) while it runs. */
function stateProbe(getAgent: () => Agent, seen: ToolCallState[], options: { readOnly: boolean }) {
  return tool({
    name: 'probe',
    description: 'Records its own state.',
    input: z.object({}),
    readOnly: options.readOnly,
    execute: async (_input, context) => {
      seen.push(storedCall(getAgent(), context.toolCallId)!.state);
      return 'probed';
    },
  });
}

describe.each(modes)('tool-call states (SPEC 2), %s', (mode) => {
  it('pending → asking → allowed → finished, with the result appended when it finishes', async () => {
    const seen: ToolCallState[] = [];
    let current: Agent | undefined;
    const { agent, resume } = setup(
      [{ toolCalls: [{ id: 'p1', name: 'probe', input: {} }] }, { text: 'ok' }],
      [stateProbe(() => current!, seen, { readOnly: false })],
      {},
      mode,
    );
    current = agent;
    const first = await collect(agent.replyStream('go'));
    expect(storedCall(agent, 'p1')!.state).toBe('asking');
    expect(storedResults(agent)).toEqual([]);
    current = resume(agent);
    await current.reply(confirm(replyIdOf(first), asked(first)));
    expect(seen).toEqual(['allowed']);
    expect(storedCall(current, 'p1')!.state).toBe('finished');
    expect(storedResults(current)).toEqual([
      { type: 'tool_result', id: 'p1', name: 'probe', output: 'probed', state: 'success' },
    ]);
  });

  it('pending → allowed → finished when the engine allows', async () => {
    const seen: ToolCallState[] = [];
    const { agent } = setup(
      [{ toolCalls: [{ id: 'p1', name: 'probe', input: {} }] }, { text: 'ok' }],
      [stateProbe(() => agent, seen, { readOnly: true })],
      {},
      mode,
    );
    await agent.reply('go');
    expect(seen).toEqual(['allowed']);
    expect(storedCall(agent, 'p1')!.state).toBe('finished');
  });

  it('allowed → submitted → finished for an external tool', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }, { text: 'ok' }],
      [deploy],
      { permission: { rules: [allowDeploy] } },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(storedCall(agent, 'd1')!.state).toBe('submitted');
    const next = resume(agent);
    const result = resultFor(submitted(first)[0]!, 'deployed', { url: 'https://prod' });
    await next.reply(external(replyIdOf(first), [result]));
    expect(storedCall(next, 'd1')!.state).toBe('finished');
    expect(storedResults(next)).toEqual([result]);
  });

  it('pending → asking → allowed → submitted → finished for an external tool that asks first', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }, { text: 'ok' }],
      [deploy],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(storedCall(agent, 'd1')!.state).toBe('asking');
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyIdOf(first), asked(first))));
    expect(storedCall(next, 'd1')!.state).toBe('submitted');
    expect(submitted(second).map((call) => call.id)).toEqual(['d1']);
    next = resume(next);
    await next.reply(
      external(replyIdOf(first), [resultFor(submitted(second)[0]!, 'done', { url: 'u' })]),
    );
    expect(storedCall(next, 'd1')!.state).toBe('finished');
  });

  it('a call waiting behind a parked one stays pending, with no result', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'w1', name: 'write_note', input: { path: 'a', content: '1' } },
            { id: 'w2', name: 'write_note', input: { path: 'b', content: '2' } },
          ],
        },
      ],
      [makeWriteNote()],
      {},
      mode,
    );
    await agent.reply('go');
    expect(storedCall(agent, 'w1')!.state).toBe('asking');
    expect(storedCall(agent, 'w2')).toMatchObject({ state: 'pending', suggestedRules: [] });
    expect(storedResults(agent)).toEqual([]);
  });

  it('asking → finished on denial', async () => {
    const { agent, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: '1' } }] },
        {
          text: 'ok',
        },
      ],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    await next.reply(confirm(replyIdOf(first), asked(first), { confirmed: false }));
    expect(storedCall(next, 'w1')!.state).toBe('finished');
    expect(storedResults(next)[0]!.state).toBe('denied');
  });

  it('pending → finished on error (unknown tool) and on a rule denial', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'x1', name: 'nope', input: {} },
            { id: 'f1', name: 'fetch', input: { url: 'https://a.example/' } },
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch()],
      {
        permission: {
          rules: [{ toolName: 'fetch', ruleContent: 'a.example', behavior: 'deny', source: 't' }],
        },
      },
      mode,
    );
    await agent.reply('go');
    expect(storedCall(agent, 'x1')!.state).toBe('finished');
    expect(storedCall(agent, 'f1')!.state).toBe('finished');
    expect(storedResults(agent).map((result) => [result.id, result.state])).toEqual([
      ['x1', 'error'],
      ['f1', 'denied'],
    ]);
  });

  it('asking, pending and submitted → finished on interrupt, each with exactly one result', async () => {
    const question = {
      questions: [
        {
          question: 'Which?',
          header: 'Pick',
          options: [
            { label: 'A', description: 'a' },
            { label: 'B', description: 'b' },
          ],
        },
      ],
    };
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
            { id: 'f2', name: 'fetch', input: { url: 'https://a.example/2' } },
            { id: 'q1', name: 'AskUser', input: question },
          ],
        },
      ],
      [makeFetch(), AskUser],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(['f1', 'f2', 'q1'].map((id) => storedCall(agent, id)!.state)).toEqual([
      'asking',
      'pending',
      'submitted',
    ]);
    const next = resume(agent);
    await next.reply(userInterruptEvent({ replyId: replyIdOf(first) }));
    expect(['f1', 'f2', 'q1'].map((id) => storedCall(next, id)!.state)).toEqual([
      'finished',
      'finished',
      'finished',
    ]);
    expect(storedResults(next).map((result) => [result.id, result.state])).toEqual([
      ['f1', 'interrupted'],
      ['f2', 'interrupted'],
      ['q1', 'interrupted'],
    ]);
  });
});
