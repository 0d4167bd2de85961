import { describe, expect, it } from 'vitest';
import { textOf } from '../src/index.js';
import type { Middleware, PermissionDecision, ToolChunk } from '../src/index.js';
import {
  asked,
  collect,
  confirm,
  makeLookup,
  makeWriteNote,
  modes,
  ofType,
  replyIdOf,
  resultsSeen,
  setup,
  storedCall,
} from './support.js';

const writeCall = { id: 'w1', name: 'write_note', input: { path: 'a.txt', content: 'hi' } };

/** Two middlewares that log around every hook, to show the onion order. */
function tracing(log: string[]): Middleware[] {
  return ['outer', 'inner'].map((name) => ({
    name,
    onModelCall: (context, next) => {
      log.push(`${name}:model:before`);
      const stream = next(context);
      return (async function* () {
        yield* stream;
        log.push(`${name}:model:after`);
      })();
    },
    onCheckPermission: async (context, next) => {
      log.push(`${name}:permission:before`);
      const decision = await next(context);
      log.push(`${name}:permission:after`);
      return decision;
    },
    onActing: (context, next) => {
      log.push(`${name}:acting:before`);
      const stream = next(context);
      return (async function* () {
        yield* stream;
        log.push(`${name}:acting:after`);
      })();
    },
  }));
}

describe('middlewares: onion order (SPEC 3)', () => {
  it('onModelCall, onCheckPermission and onActing run first-outermost', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [{ toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] }, { text: 'done' }],
      [makeLookup(log)],
      { middlewares: tracing(log) },
    );
    await agent.reply('go');
    expect(log).toEqual([
      'outer:model:before',
      'inner:model:before',
      'inner:model:after',
      'outer:model:after',
      'outer:permission:before',
      'inner:permission:before',
      'inner:permission:after',
      'outer:permission:after',
      'outer:acting:before',
      'inner:acting:before',
      'a',
      'inner:acting:after',
      'outer:acting:after',
      'outer:model:before',
      'inner:model:before',
      'inner:model:after',
      'outer:model:after',
    ]);
  });

  it('a middleware may short-circuit: onCheckPermission allows without the engine', async () => {
    const log: string[] = [];
    const allowAll: Middleware = {
      onCheckPermission: async () => ({ behavior: 'allow', message: 'allowed by policy' }),
    };
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'done' }], [makeWriteNote(log)], {
      middlewares: [allowAll],
    });
    const events = await collect(agent.replyStream('write'));
    expect(asked(events)).toEqual([]);
    expect(log).toEqual(['a.txt=hi']);
  });

  it('a middleware may short-circuit: onCheckPermission denies, and the model reads its message', async () => {
    const log: string[] = [];
    const denyAll: Middleware = {
      onCheckPermission: async () => ({ behavior: 'deny', message: 'Writes are frozen today.' }),
    };
    const { agent, model } = setup(
      [{ toolCalls: [writeCall] }, { text: 'ok' }],
      [makeWriteNote(log)],
      { middlewares: [denyAll] },
    );
    const events = await collect(agent.replyStream('write'));
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('denied');
    expect(resultsSeen(model.requests[1]!.messages)[0]!.output).toBe('Writes are frozen today.');
    expect(log).toEqual([]);
  });

  it('onActing may transform the chunks of a result', async () => {
    const shout: Middleware = {
      onActing: (context, next) =>
        (async function* (): AsyncGenerator<ToolChunk> {
          for await (const chunk of next(context)) {
            yield chunk.type === 'text' ? { ...chunk, text: chunk.text.toUpperCase() } : chunk;
          }
        })(),
    };
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] }, { text: 'done' }],
      [makeLookup()],
      { middlewares: [shout] },
    );
    await agent.reply('go');
    expect(resultsSeen(model.requests[1]!.messages)[0]!.output).toBe('VALUE OF A');
  });

  it('onModelCall may change what the model is sent, without changing the context', async () => {
    const redact: Middleware = {
      onModelCall: (context, next) =>
        next({ ...context, request: { ...context.request, systemPrompt: 'Be terse.' } }),
    };
    const { agent, model } = setup([{ text: 'ok' }], [], { middlewares: [redact] });
    await agent.reply('hi');
    expect(model.requests[0]!.systemPrompt).toBe('Be terse.');
  });
});

describe('middlewares get copies (SPEC 3)', () => {
  it('editing the call or input in onCheckPermission changes neither the state nor what runs', async () => {
    const log: string[] = [];
    const meddle: Middleware = {
      onCheckPermission: async (context, _next) => {
        context.toolCall.input = '{"path":"evil","content":"x"}';
        context.toolCall.name = 'other';
        (context.input as { path: string }).path = 'evil';
        return { behavior: 'allow', message: 'ok' };
      },
    };
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'done' }], [makeWriteNote(log)], {
      middlewares: [meddle],
    });
    await agent.reply('write');
    expect(log).toEqual(['a.txt=hi']);
    expect(storedCall(agent, 'w1')).toMatchObject({
      name: 'write_note',
      input: JSON.stringify(writeCall.input),
    });
  });

  it('editing the call in onActing does not change the stored call', async () => {
    const meddle: Middleware = {
      onActing: (context, next) => {
        context.toolCall.input = 'garbage';
        context.toolCall.state = 'pending';
        return next(context);
      },
    };
    const { agent } = setup(
      [{ toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] }, { text: 'done' }],
      [makeLookup()],
      { middlewares: [meddle] },
    );
    await agent.reply('go');
    expect(storedCall(agent, 'k1')).toMatchObject({ input: '{"key":"a"}', state: 'finished' });
  });

  it('editing the request in onModelCall does not change the context', async () => {
    const meddle: Middleware = {
      onModelCall: (context, next) => {
        for (const message of context.request.messages) {
          if (typeof message.content === 'string') message.content = 'REDACTED';
          else {
            for (const block of message.content) {
              if (block.type === 'text') block.text = 'REDACTED';
              if (block.type === 'tool_result') block.output = 'REDACTED';
            }
          }
        }
        return next(context);
      },
    };
    const { agent, model } = setup(
      [
        { text: 'first answer' },
        { text: 'looking', toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'a' } }] },
        { text: 'second answer' },
      ],
      [makeLookup()],
      { middlewares: [meddle] },
    );
    await agent.reply('one');
    await agent.reply('two');
    expect(agent.state.context.map((message) => textOf(message))).toEqual([
      'one',
      'first answer',
      'two',
      'looking\nsecond answer',
    ]);
    expect(resultsSeen(agent.state.context)[0]!.output).toBe('value of a');
    expect(model.requests[2]!.messages.map((message) => textOf(message))).toEqual([
      'REDACTED',
      'REDACTED',
      'REDACTED',
      'REDACTED',
    ]);
  });
});

describe.each(modes)(
  'a confirmed call skips the engine but not the middlewares (SPEC 3), %s',
  (mode) => {
    it('the middleware sees confirmedByUser and the decision `Already allowed by user confirmation.`', async () => {
      const seen: { confirmedByUser: boolean; decision: PermissionDecision }[] = [];
      const watch: Middleware = {
        onCheckPermission: async (context, next) => {
          const decision = await next(context);
          seen.push({ confirmedByUser: context.confirmedByUser, decision });
          return decision;
        },
      };
      let consulted = 0;
      const log: string[] = [];
      const base = makeWriteNote(log);
      const counting = {
        ...base,
        checkPermissions: (input: { path: string; content: string }, context: never) => {
          consulted += 1;
          return base.checkPermissions(input, context);
        },
      };
      const { agent, resume } = setup(
        [{ toolCalls: [writeCall] }, { text: 'done' }],
        [counting],
        { middlewares: [watch] },
        mode,
      );
      const first = await collect(agent.replyStream('write'));
      const consultedToAsk = consulted;
      expect(consultedToAsk).toBeGreaterThan(0);
      expect(seen).toEqual([
        {
          confirmedByUser: false,
          decision: expect.objectContaining({
            behavior: 'ask',
            message: 'Permission required for write_note',
          }),
        },
      ]);
      await resume(agent).reply(confirm(replyIdOf(first), asked(first)));
      expect(consulted).toBe(consultedToAsk);
      expect(seen[1]).toEqual({
        confirmedByUser: true,
        decision: expect.objectContaining({
          behavior: 'allow',
          message: 'Already allowed by user confirmation.',
        }),
      });
      expect(log).toEqual(['a.txt=hi']);
    });

    it('a middleware can still refuse a confirmed call', async () => {
      const log: string[] = [];
      const veto: Middleware = {
        onCheckPermission: async (context, next) =>
          context.confirmedByUser
            ? { behavior: 'deny', message: 'Vetoed by policy after confirmation.' }
            : next(context),
      };
      const { agent, resume } = setup(
        [{ toolCalls: [writeCall] }, { text: 'ok' }],
        [makeWriteNote(log)],
        { middlewares: [veto] },
        mode,
      );
      const first = await collect(agent.replyStream('write'));
      const events = await collect(
        resume(agent).replyStream(confirm(replyIdOf(first), asked(first))),
      );
      expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(
        'Vetoed by policy after confirmation.',
      );
      expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('denied');
      expect(log).toEqual([]);
    });
  },
);
