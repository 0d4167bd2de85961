import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../src/index.js';
import type { Middleware, ToolChunk } from '../src/index.js';
import {
  asked,
  collect,
  confirm,
  eventsOfCall,
  makeFetch,
  makeLookup,
  makeWriteNote,
  modes,
  ofType,
  replyIdOf,
  setup,
  storedCall,
  types,
} from './support.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A read-only tool that logs when it starts and ends, with a pause in between. */
function timed(name: string, concurrencySafe: boolean, log: string[]) {
  return tool({
    name,
    description: `${name} something.`,
    input: z.object({ id: z.string() }),
    readOnly: true,
    concurrencySafe,
    execute: async ({ id }) => {
      log.push(`start ${id}`);
      await tick();
      await tick();
      log.push(`end ${id}`);
      return id;
    },
  });
}

/** A sequential (not concurrency-safe) tool with path-prefix rules. */
function makeEdit(log: string[]) {
  return tool({
    name: 'edit',
    description: 'Edit a file.',
    input: z.object({ path: z.string() }),
    matchRule: (content, { path }) => content !== null && path.startsWith(content),
    suggestRules: ({ path }) => [
      { toolName: 'edit', ruleContent: path, behavior: 'allow', source: 'suggested' },
    ],
    execute: async ({ path }) => {
      log.push(`edit ${path}`);
      return `edited ${path}`;
    },
  });
}

const fetchCall = (id: string, url: string) => ({ id, name: 'fetch', input: { url } });

describe('batches (SPEC 4)', () => {
  it('concurrency-safe calls run together, the others one by one, in the model order', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'c1', name: 'par', input: { id: 'c1' } },
            { id: 'c2', name: 'par', input: { id: 'c2' } },
            { id: 's1', name: 'seq', input: { id: 's1' } },
            { id: 's2', name: 'seq', input: { id: 's2' } },
            { id: 'c3', name: 'par', input: { id: 'c3' } },
            { id: 'c4', name: 'par', input: { id: 'c4' } },
          ],
        },
        { text: 'ok' },
      ],
      [timed('par', true, log), timed('seq', false, log)],
    );
    await agent.reply('go');
    expect(log.slice(0, 2).sort()).toEqual(['start c1', 'start c2']);
    expect(log.slice(2, 4).sort()).toEqual(['end c1', 'end c2']);
    expect(log.slice(4, 8)).toEqual(['start s1', 'end s1', 'start s2', 'end s2']);
    expect(log.slice(8, 10).sort()).toEqual(['start c3', 'start c4']);
    expect(log.slice(10).sort()).toEqual(['end c3', 'end c4']);
  });

  it('unknown tools count as concurrency-safe: they do not split a concurrent batch', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'c1', name: 'par', input: { id: 'c1' } },
            { id: 'x1', name: 'missing', input: {} },
            { id: 'c2', name: 'par', input: { id: 'c2' } },
          ],
        },
        { text: 'ok' },
      ],
      [timed('par', true, log)],
    );
    await agent.reply('go');
    expect(log.slice(0, 2).sort()).toEqual(['start c1', 'start c2']);
  });

  it('events of concurrent calls may interleave; each call keeps its own order', async () => {
    const streaming = tool({
      name: 'stream',
      description: 'Streams three chunks.',
      input: z.object({ id: z.string() }),
      readOnly: true,
      concurrencySafe: true,
      execute: async function* ({ id }): AsyncGenerator<ToolChunk> {
        for (let i = 1; i <= 3; i++) {
          await tick();
          yield { type: 'text', text: `${id}.${i} ` };
        }
      },
    });
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'a', name: 'stream', input: { id: 'a' } },
            { id: 'b', name: 'stream', input: { id: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
      [streaming],
    );
    const events = await collect(agent.replyStream('go'));
    for (const id of ['a', 'b']) {
      const own = eventsOfCall(events, id).filter((event) => event.type.startsWith('TOOL_RESULT'));
      expect(types(own)).toEqual([
        'TOOL_RESULT_START',
        'TOOL_RESULT_TEXT_DELTA',
        'TOOL_RESULT_TEXT_DELTA',
        'TOOL_RESULT_TEXT_DELTA',
        'TOOL_RESULT_END',
      ]);
      expect(ofType(own, 'TOOL_RESULT_TEXT_DELTA').map((event) => event.delta)).toEqual([
        `${id}.1 `,
        `${id}.2 `,
        `${id}.3 `,
      ]);
    }
    const firstOfB = events.findIndex(
      (event) => event.type === 'TOOL_RESULT_TEXT_DELTA' && event.toolCallId === 'b',
    );
    const endOfA = events.findIndex(
      (event) => event.type === 'TOOL_RESULT_END' && event.toolCallId === 'a',
    );
    expect(firstOfB).toBeLessThan(endOfA);
  });
});

describe.each(modes)('sequential batches (SPEC 4), %s', (mode) => {
  it('stop at the first call that parks; later calls stay pending with no event', async () => {
    const log: string[] = [];
    const { agent, model, resume } = setup(
      [
        {
          toolCalls: [
            { id: 'e1', name: 'edit', input: { path: 'a/x' } },
            { id: 'e2', name: 'edit', input: { path: 'b/y' } },
          ],
        },
        { text: 'ok' },
      ],
      [makeEdit(log)],
      {
        permission: {
          rules: [{ toolName: 'edit', ruleContent: 'b/', behavior: 'allow', source: 'test' }],
        },
      },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first).map((call) => call.id)).toEqual(['e1']);
    expect(types(eventsOfCall(first, 'e2'))).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
    ]);
    expect(storedCall(agent, 'e2')!.state).toBe('pending');
    expect(log).toEqual([]);
    const next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyIdOf(first), asked(first))));
    expect(log).toEqual(['edit a/x', 'edit b/y']);
    expect(asked(second)).toEqual([]);
    expect(types(second).at(-1)).toBe('REPLY_END');
    expect(model.requests).toHaveLength(2);
  });

  it('the next asking call is surfaced only after the first is settled', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            { id: 'w1', name: 'write_note', input: { path: 'a', content: '1' } },
            { id: 'w2', name: 'write_note', input: { path: 'b', content: '2' } },
          ],
        },
        { text: 'ok' },
      ],
      [makeWriteNote(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const replyId = replyIdOf(first);
    expect(asked(first).map((call) => call.id)).toEqual(['w1']);
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, asked(first))));
    expect(log).toEqual(['a=1']);
    expect(asked(second).map((call) => call.id)).toEqual(['w2']);
    expect(types(second).at(-1)).toBe('REQUIRE_USER_CONFIRM');
    next = resume(next);
    const third = await collect(next.replyStream(confirm(replyId, asked(second))));
    expect(log).toEqual(['a=1', 'b=2']);
    expect(types(third).at(-1)).toBe('REPLY_END');
  });
});

describe.each(modes)('concurrent batches and de-duplication (SPEC 4), %s', (mode) => {
  it('allowed siblings run while one asks; the REQUIRE event comes after their results', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            { id: 'k1', name: 'lookup', input: { key: 'k' } },
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log), makeLookup(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(log).toEqual(['k']);
    expect(types(first).slice(-4)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
      'REQUIRE_USER_CONFIRM',
    ]);
    expect(storedCall(agent, 'k1')!.state).toBe('finished');
    const next = resume(agent);
    await next.reply(confirm(replyIdOf(first), asked(first)));
    expect(log).toEqual(['k', 'https://a.example/1']);
  });

  it('a later ask covered by an earlier prompt’s rule is not surfaced, and stays pending', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
            fetchCall('f3', 'https://b.example/1'),
          ],
        },
      ],
      [makeFetch()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first).map((call) => call.id)).toEqual(['f1', 'f3']);
    expect(ofType(first, 'REQUIRE_USER_CONFIRM')).toHaveLength(2);
    expect(types(eventsOfCall(first, 'f2'))).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
    ]);
    expect(storedCall(agent, 'f2')).toMatchObject({ state: 'pending', suggestedRules: [] });
  });

  it('accepting the first prompt’s rule runs the covered call without a second prompt', async () => {
    const log: string[] = [];
    const { agent, model, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
            fetchCall('f3', 'https://b.example/1'),
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    const second = await collect(
      next.replyStream(confirm(replyIdOf(first), asked(first), { withRules: true })),
    );
    expect(asked(second)).toEqual([]);
    expect([...log].sort()).toEqual([
      'https://a.example/1',
      'https://a.example/2',
      'https://b.example/1',
    ]);
    expect(types(second).at(-1)).toBe('REPLY_END');
    expect(model.requests).toHaveLength(2);
  });

  it('declining the rule (confirming without it) prompts the covered call then', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const replyId = replyIdOf(first);
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, asked(first))));
    expect(log).toEqual(['https://a.example/1']);
    expect(asked(second).map((call) => call.id)).toEqual(['f2']);
    expect(asked(second)[0]!.suggestedRules).toEqual([
      { toolName: 'fetch', ruleContent: 'a.example', behavior: 'allow', source: 'suggested' },
    ]);
    expect(types(second)).not.toContain('REPLY_END');
    next = resume(next);
    const third = await collect(next.replyStream(confirm(replyId, asked(second))));
    expect(log).toEqual(['https://a.example/1', 'https://a.example/2']);
    expect(types(third).at(-1)).toBe('REPLY_END');
  });

  it('denying the first prompt prompts the covered call then', async () => {
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
          ],
        },
      ],
      [makeFetch()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    const second = await collect(
      next.replyStream(confirm(replyIdOf(first), asked(first), { confirmed: false })),
    );
    expect(asked(second).map((call) => call.id)).toEqual(['f2']);
  });

  it('a tool-name rule (ruleContent null) covers later calls, as it does in the engine', async () => {
    // A Tool written by hand whose matchRule only knows its own rule contents:
    // a null rule must still match every call of the tool (SPEC 6).
    const base = makeFetch();
    const handWritten = {
      ...base,
      matchRule: (content: string | null, input: { url: string }) =>
        content !== null && base.matchRule(content, input),
      suggestRules: () => [
        { toolName: 'fetch', ruleContent: null, behavior: 'allow', source: 'suggested' } as const,
      ],
    };
    const { agent } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://b.example/2'),
          ],
        },
      ],
      [handWritten],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first)[0]!.suggestedRules).toEqual([
      { toolName: 'fetch', ruleContent: null, behavior: 'allow', source: 'suggested' },
    ]);
    expect(asked(first).map((call) => call.id)).toEqual(['f1']);
    expect(storedCall(agent, 'f2')!.state).toBe('pending');
  });

  it('safety asks are never de-duplicated', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/danger'),
            fetchCall('f3', 'https://a.example/danger2'),
          ],
        },
      ],
      [makeFetch()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first).map((call) => call.id)).toEqual(['f1', 'f2', 'f3']);
    expect(asked(first)[1]!.suggestedRules).toEqual([]);
  });

  it('a safety ask’s rules still count for later calls of the batch', async () => {
    const rule = {
      toolName: 'fetch',
      ruleContent: 'a.example',
      behavior: 'allow',
      source: 'suggested',
    } as const;
    const safetyWithRule: Middleware = {
      onCheckPermission: async (context, next) =>
        context.toolCall.id === 'f1'
          ? { behavior: 'ask', message: 'Careful.', bypassImmune: true, suggestedRules: [rule] }
          : next(context),
    };
    const { agent } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
          ],
        },
      ],
      [makeFetch()],
      { middlewares: [safetyWithRule] },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first).map((call) => call.id)).toEqual(['f1']);
    expect(storedCall(agent, 'f2')!.state).toBe('pending');
  });

  it('while a call asks, pending calls wait and allowed ones run (partial answers)', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
            fetchCall('f3', 'https://b.example/1'),
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const replyId = replyIdOf(first);
    const [f1, f3] = asked(first);
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, [f1!], { withRules: true })));
    expect(log).toEqual(['https://a.example/1']);
    expect(storedCall(next, 'f2')!.state).toBe('pending');
    expect(storedCall(next, 'f3')!.state).toBe('asking');
    expect(asked(second)).toEqual([]);
    expect(types(second).at(-1)).toBe('TOOL_RESULT_END');
    next = resume(next);
    const third = await collect(next.replyStream(confirm(replyId, [f3!])));
    expect([...log].sort()).toEqual([
      'https://a.example/1',
      'https://a.example/2',
      'https://b.example/1',
    ]);
    expect(asked(third)).toEqual([]);
    expect(types(third).at(-1)).toBe('REPLY_END');
  });

  it('once a batch parked, later batches are not started until the resume', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            { id: 'w1', name: 'write_note', input: { path: 'n', content: 'x' } },
            { id: 'k1', name: 'lookup', input: { key: 'k' } },
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log), makeWriteNote(log), makeLookup(log)],
      {
        permission: {
          rules: [{ toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 't' }],
        },
      },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    expect(asked(first).map((call) => call.id)).toEqual(['f1']);
    expect(log).toEqual([]);
    expect(storedCall(agent, 'w1')!.state).toBe('pending');
    expect(storedCall(agent, 'k1')!.state).toBe('pending');
    expect(types(first).filter((type) => type.startsWith('TOOL_RESULT'))).toEqual([]);
    await resume(agent).reply(confirm(replyIdOf(first), asked(first)));
    expect(log).toEqual(['https://a.example/1', 'n=x', 'k']);
  });
});
