import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../src/index.js';
import type { ToolChunk, ToolOutput } from '../src/index.js';
import {
  allowDeploy,
  asked,
  collect,
  deploy,
  eventsOfCall,
  makeFetch,
  makeWriteNote,
  ofType,
  resultsSeen,
  setup,
  storedCall,
  storedResults,
  submitted,
  types,
} from './support.js';

const allowWrites = {
  toolName: 'write_note',
  ruleContent: null,
  behavior: 'allow',
  source: 'test',
} as const;

describe('acting step 1: look up and validate (SPEC 3)', () => {
  it('an unknown tool gets the verbatim error result, and the model reads it', async () => {
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'x1', name: 'teleport', input: {} }] }, { text: 'sorry' }],
      [],
    );
    const events = await collect(agent.replyStream('go'));
    const text = "ToolNotFoundError: The tool named 'teleport' doesn't exist.";
    expect(types(eventsOfCall(events, 'x1'))).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_START')[0]).toMatchObject({ toolCallName: 'teleport' });
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(text);
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('error');
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([
      { type: 'tool_result', id: 'x1', name: 'teleport', output: text, state: 'error' },
    ]);
    expect(storedCall(agent, 'x1')!.state).toBe('finished');
  });

  it('input that is not JSON gets `Input validation failed for tool ...`', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [{ toolCalls: [{ id: 'w1', name: 'write_note', input: '{"path": ' }] }, { text: 'oops' }],
      [makeWriteNote(log)],
    );
    const events = await collect(agent.replyStream('go'));
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toMatch(
      /^Input validation failed for tool 'write_note': input is not valid JSON \(.+\)$/,
    );
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('error');
    expect(asked(events)).toEqual([]);
    expect(log).toEqual([]);
  });

  it('input that fails the schema names the field, before any permission question', async () => {
    const { agent } = setup(
      [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 7 } }] }, { text: 'oops' }],
      [makeWriteNote()],
    );
    const events = await collect(agent.replyStream('go'));
    const text = ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta;
    expect(text.startsWith("Input validation failed for tool 'write_note': ")).toBe(true);
    expect(text).toContain('path');
    expect(text).toContain('content');
    expect(asked(events)).toEqual([]);
  });
});

describe('acting step 3: the decision (SPEC 3)', () => {
  it('ask: the call is asking with suggested rules, one REQUIRE_USER_CONFIRM per call', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'f1', name: 'fetch', input: { url: 'https://a.example/x' } },
            { id: 'f2', name: 'fetch', input: { url: 'https://b.example/y' } },
          ],
        },
      ],
      [makeFetch()],
    );
    const events = await collect(agent.replyStream('go'));
    const requires = ofType(events, 'REQUIRE_USER_CONFIRM');
    expect(requires.map((event) => event.toolCalls.map((call) => call.id))).toEqual([
      ['f1'],
      ['f2'],
    ]);
    expect(requires[0]!.toolCalls[0]).toEqual({
      type: 'tool_call',
      id: 'f1',
      name: 'fetch',
      input: '{"url":"https://a.example/x"}',
      state: 'asking',
      suggestedRules: [
        { toolName: 'fetch', ruleContent: 'a.example', behavior: 'allow', source: 'suggested' },
      ],
    });
    expect(storedCall(agent, 'f1')).toEqual(requires[0]!.toolCalls[0]);
    expect(types(events)).not.toContain('TOOL_RESULT_START');
  });

  it('the REQUIRE_* events carry copies: editing them does not reach the state', async () => {
    const { agent } = setup(
      [{ toolCalls: [{ id: 'f1', name: 'fetch', input: { url: 'https://a.example/x' } }] }],
      [makeFetch()],
    );
    const events = await collect(agent.replyStream('go'));
    const call = asked(events)[0]!;
    call.input = '{}';
    call.suggestedRules[0]!.ruleContent = 'evil.example';
    expect(storedCall(agent, 'f1')).toMatchObject({
      input: '{"url":"https://a.example/x"}',
      suggestedRules: [{ ruleContent: 'a.example' }],
    });
  });

  it('deny: START, the decision message as TEXT_DELTA, END(denied); the model reads the message', async () => {
    const log: string[] = [];
    const { agent, model } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
        { text: 'understood' },
      ],
      [makeWriteNote(log)],
      {
        permission: {
          rules: [{ toolName: 'write_note', ruleContent: null, behavior: 'deny', source: 'test' }],
        },
      },
    );
    const events = await collect(agent.replyStream('go'));
    expect(types(eventsOfCall(events, 'w1')).slice(3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    const message = 'Permission to use write_note has been denied';
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(message);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({ state: 'denied', metadata: {} });
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([
      { type: 'tool_result', id: 'w1', name: 'write_note', output: message, state: 'denied' },
    ]);
    expect(log).toEqual([]);
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('allow, local tool: START, streamed text and data chunks, END with the tool state and metadata', async () => {
    const render = tool({
      name: 'render',
      description: 'Render a chart.',
      input: z.object({}),
      readOnly: true,
      execute: async function* (): AsyncGenerator<ToolChunk> {
        yield { type: 'text', text: 'Rendering' };
        yield { type: 'text', text: ' done.' };
        yield { type: 'data', source: { type: 'base64', data: 'iVBOR', mediaType: 'image/png' } };
        yield {
          type: 'data',
          source: { type: 'url', url: 'https://x/c.png', mediaType: 'image/png' },
        };
        yield { type: 'tool_end', state: 'success', metadata: { width: 640 } };
      },
    });
    const { agent } = setup(
      [{ toolCalls: [{ id: 'r1', name: 'render', input: {} }] }, { text: 'ok' }],
      [render],
    );
    const events = eventsOfCall(await collect(agent.replyStream('go')), 'r1').slice(3);
    expect(types(events)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_DATA_DELTA',
      'TOOL_RESULT_DATA_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_DATA_DELTA')).toEqual([
      expect.objectContaining({ mediaType: 'image/png', data: 'iVBOR' }),
      expect.objectContaining({ mediaType: 'image/png', url: 'https://x/c.png' }),
    ]);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      state: 'success',
      metadata: { width: 640 },
    });
    expect(storedResults(agent)).toEqual([
      {
        type: 'tool_result',
        id: 'r1',
        name: 'render',
        output: [
          { type: 'text', text: 'Rendering done.' },
          { type: 'data', source: { type: 'base64', data: 'iVBOR', mediaType: 'image/png' } },
          { type: 'data', source: { type: 'url', url: 'https://x/c.png', mediaType: 'image/png' } },
        ],
        state: 'success',
        metadata: { width: 640 },
      },
    ]);
  });

  it('allow, local tool: a whole response with state error and metadata', async () => {
    const check = tool({
      name: 'check',
      description: 'Check.',
      input: z.object({}),
      readOnly: true,
      execute: async () => ({ output: '3 tests failed', state: 'error', metadata: { failed: 3 } }),
    });
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'c1', name: 'check', input: {} }] }, { text: 'ok' }],
      [check],
    );
    const events = await collect(agent.replyStream('go'));
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      state: 'error',
      metadata: { failed: 3 },
    });
    expect(resultsSeen(model.requests[1]!.messages)[0]).toMatchObject({
      output: '3 tests failed',
      state: 'error',
      metadata: { failed: 3 },
    });
  });

  it('allow, external tool: START, then submitted with REQUIRE_EXTERNAL_EXECUTION', async () => {
    const { agent } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }],
      [deploy],
      { permission: { rules: [allowDeploy] } },
    );
    const events = await collect(agent.replyStream('go'));
    expect(types(events).slice(-2)).toEqual(['TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION']);
    expect(submitted(events)).toEqual([
      {
        type: 'tool_call',
        id: 'd1',
        name: 'deploy',
        input: '{"env":"prod"}',
        state: 'submitted',
        suggestedRules: [],
      },
    ]);
    expect(storedCall(agent, 'd1')!.state).toBe('submitted');
    expect(storedResults(agent)).toEqual([]);
  });

  it('a tool that throws gives an error result with its message, and the loop goes on', async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'Fails.',
      input: z.object({}),
      readOnly: true,
      execute: async () => {
        throw new Error('disk full');
      },
    });
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'f1', name: 'flaky', input: {} }] }, { text: 'It failed: disk full.' }],
      [flaky],
    );
    const events = await collect(agent.replyStream('go'));
    expect(types(eventsOfCall(events, 'f1')).slice(3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('disk full');
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('error');
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('completed');
  });

  it('a tool whose permission check throws gets an error result, never runs, and the loop goes on', async () => {
    let runs = 0;
    const broken = tool({
      name: 'broken',
      description: 'Its permission check fails.',
      input: z.object({}),
      checkPermissions: () => {
        throw new Error('policy service unavailable');
      },
      execute: async () => {
        runs += 1;
        return 'ran';
      },
    });
    const { agent, model } = setup(
      [{ toolCalls: [{ id: 'b1', name: 'broken', input: {} }] }, { text: 'I could not.' }],
      [broken],
    );
    const events = await collect(agent.replyStream('go'));
    expect(types(eventsOfCall(events, 'b1')).slice(3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('policy service unavailable');
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('error');
    expect(runs).toBe(0);
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('completed');
  });

  it('a tool that fails mid-stream keeps what it streamed, then the error', async () => {
    const partial = tool({
      name: 'partial',
      description: 'Streams, then fails.',
      input: z.object({}),
      readOnly: true,
      execute: async function* (): AsyncGenerator<ToolChunk> {
        yield { type: 'text', text: 'line 1\n' };
        throw new Error('connection reset');
      },
    });
    const { agent } = setup(
      [{ toolCalls: [{ id: 'p1', name: 'partial', input: {} }] }, { text: 'ok' }],
      [partial],
    );
    await agent.reply('go');
    expect(storedResults(agent)[0]).toMatchObject({
      output: 'line 1\nconnection reset',
      state: 'error',
    });
  });

  it('a tool runs exactly once per call, whatever it returns', async () => {
    let runs = 0;
    const quiet = tool({
      name: 'quiet',
      description: 'Returns nothing (a plain JavaScript tool).',
      input: z.object({}),
      readOnly: true,
      execute: async () => {
        runs += 1;
        return undefined as unknown as ToolOutput;
      },
    });
    const { agent } = setup(
      [{ toolCalls: [{ id: 'q1', name: 'quiet', input: {} }] }, { text: 'ok' }],
      [quiet],
    );
    await agent.reply('go');
    expect(runs).toBe(1);
    expect(storedResults(agent)).toHaveLength(1);
  });

  it('a call allowed by a rule runs without asking', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
        { text: 'ok' },
      ],
      [makeWriteNote(log)],
      { permission: { rules: [allowWrites] } },
    );
    const events = await collect(agent.replyStream('go'));
    expect(asked(events)).toEqual([]);
    expect(log).toEqual(['a=b']);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('Wrote 1 characters to a');
  });

  it('custom tools made with tool() ask until a rule allows them (passthrough)', async () => {
    const { agent } = setup(
      [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] }],
      [makeWriteNote()],
    );
    const events = await collect(agent.replyStream('go'));
    expect(asked(events).map((call) => call.id)).toEqual(['w1']);
  });
});
