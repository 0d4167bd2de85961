// Loop overhead: a reply of 100 sequential allowed tool calls with trivial
// bodies, through Agent.replyStream, against a minimal hand-written loop doing
// the same model → tool → result steps with the same model. Both run in this
// process, interleaved, and the difference per tool call is the overhead.
//
//   npx tsx bench/loop.ts            (npm run bench:loop)
import { z } from 'zod';
import { Agent, Toolkit, tool } from '@parley/core';
import type { ChatChunk, ChatModel, ChatRequest, Msg, ContentBlock } from '@parley/core';

const CALLS = 100;
const ROUNDS = Number(process.env.ROUNDS ?? 40);

/** A model that plays precomputed chunks: the same cost under both loops. */
class ReplayModel implements ChatModel {
  readonly name = 'replay';
  private turn = 0;
  constructor(private readonly turns: ChatChunk[][]) {}
  reset(): void {
    this.turn = 0;
  }
  async *stream(_request: ChatRequest): AsyncGenerator<ChatChunk> {
    const chunks = this.turns[this.turn++] ?? [];
    for (const chunk of chunks) yield chunk;
  }
}

function script(): ChatChunk[][] {
  const turns: ChatChunk[][] = [];
  for (let i = 0; i < CALLS; i++) {
    const id = `call_${i}`;
    turns.push([
      { type: 'tool_call_start', id, name: 'touch' },
      { type: 'tool_call_delta', id, delta: `{"n":${i}}` },
      { type: 'tool_call_end', id },
      { type: 'usage', inputTokens: 10, outputTokens: 5 },
      { type: 'finish', finishedReason: 'tool_calls' },
    ]);
  }
  turns.push([
    { type: 'text_delta', delta: 'done' },
    { type: 'usage', inputTokens: 10, outputTokens: 1 },
    { type: 'finish', finishedReason: 'stop' },
  ]);
  return turns;
}

const touch = tool({
  name: 'touch',
  description: 'Does nothing.',
  input: z.object({ n: z.number() }),
  execute: () => 'ok',
});

async function parleyRun(model: ReplayModel): Promise<number> {
  model.reset();
  const agent = new Agent({
    name: 'bench',
    model,
    toolkit: new Toolkit([touch]),
    permission: {
      rules: [{ toolName: 'touch', ruleContent: null, behavior: 'allow', source: 'bench' }],
    },
    maxIters: CALLS + 5,
  });
  let events = 0;
  for await (const _event of agent.replyStream('go')) events += 1;
  return events;
}

/** The floor: the fewest steps that do the same work. */
async function floorRun(model: ReplayModel): Promise<number> {
  model.reset();
  const messages: Msg[] = [{ id: 'u', name: 'user', role: 'user', content: 'go' }];
  const reply: ContentBlock[] = [];
  messages.push({ id: 'r', name: 'bench', role: 'assistant', content: reply });
  const schemas = [
    { name: 'touch', description: 'Does nothing.', inputSchema: touch.jsonSchema() },
  ];
  let steps = 0;
  for (;;) {
    const calls: { id: string; name: string; input: string }[] = [];
    for await (const chunk of model.stream({ systemPrompt: '', messages, tools: schemas })) {
      if (chunk.type === 'tool_call_start')
        calls.push({ id: chunk.id, name: chunk.name, input: '' });
      else if (chunk.type === 'tool_call_delta') calls[calls.length - 1]!.input += chunk.delta;
      else if (chunk.type === 'text_delta') reply.push({ type: 'text', text: chunk.delta });
    }
    if (calls.length === 0) return steps;
    for (const call of calls) {
      const input = touch.inputSchema.parse(JSON.parse(call.input));
      const output = await touch.execute!(input, undefined as never);
      reply.push({ type: 'tool_call', ...call, state: 'finished', suggestedRules: [] });
      reply.push({
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: typeof output === 'string' ? output : '',
        state: 'success',
      });
      steps += 1;
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * CPU time (user + system, µs) of one run. Both loops are single-threaded
 * and never wait on I/O, so CPU time equals their work, and unlike wall time
 * it does not count moments when another process had the core.
 */
async function time(run: () => Promise<number>): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

async function main(): Promise<void> {
  const parleyModel = new ReplayModel(script());
  const floorModel = new ReplayModel(script());
  for (let i = 0; i < 10; i++) {
    await parleyRun(parleyModel);
    await floorRun(floorModel);
  }
  const parley: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    floor.push(await time(() => floorRun(floorModel)));
    parley.push(await time(() => parleyRun(parleyModel)));
  }
  const perCall = (us: number): number => us / CALLS;
  const floorCall = perCall(median(floor));
  const parleyCall = perCall(median(parley));
  const overhead = parleyCall - floorCall;
  console.log(
    `loop bench: ${CALLS} sequential allowed tool calls per reply, median CPU time of ${ROUNDS} runs each`,
  );
  console.log(`  floor (hand-written loop): ${floorCall.toFixed(1)} µs per tool call`);
  console.log(`  Parley replyStream:        ${parleyCall.toFixed(1)} µs per tool call`);
  console.log(
    `  overhead: ${overhead.toFixed(1)} µs per tool call over the floor; ratio ${(parleyCall / floorCall).toFixed(2)}×`,
  );
  console.log(`  target ≤ 50 µs per call over the floor: ${overhead <= 50 ? 'met' : 'NOT met'}`);
}

await main();
