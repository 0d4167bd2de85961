import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseAgentState, tool, userInterruptEvent } from '../src/index.js';
import type { AgentState, ToolChunk, ToolContext } from '../src/index.js';
import {
  collect,
  eventsOfCall,
  external,
  lastBlocks,
  modes,
  ofType,
  replyIdOf,
  resultFor,
  setup,
  storedCall,
  storedResults,
  submitted,
  types,
} from './support.js';

/**
 * A read-only tool that, on its first run, suspends for a `question` call
 * and, run again, answers with what the question's result said.
 */
function makeAsking(runs: (ToolContext['answers'] | undefined)[] = []) {
  return tool({
    name: 'book',
    description: 'Book a room (asks which one).',
    input: z.object({ hotel: z.string() }),
    readOnly: true,
    execute: async function* ({ hotel }, context): AsyncGenerator<ToolChunk> {
      runs.push(context.answers);
      const answer = context.answers?.at(-1)?.result;
      if (answer === undefined) {
        yield {
          type: 'tool_suspend',
          name: 'question',
          input: { text: `Which room at ${hotel}?` },
        };
        return;
      }
      const text = typeof answer.output === 'string' ? answer.output : 'no text';
      yield { type: 'text', text: `Booked ${text} at ${hotel}` };
    },
  });
}

const question = tool({
  name: 'question',
  description: 'Raised by tools; answered from outside.',
  input: z.object({ text: z.string() }),
  external: true,
});

/** The TOOL_RESULT_* event types, in order. */
const resultTypes = (events: Parameters<typeof types>[0]): string[] =>
  types(events).filter((type) => type.startsWith('TOOL_RESULT_'));

const steps = [
  { toolCalls: [{ id: 'tc1', name: 'book', input: { hotel: 'Ritz' } }] },
  { text: 'done' },
];

describe('a running tool suspends for an answer from outside (tool_suspend)', () => {
  for (const mode of modes) {
    it(`parks for the raised call and runs the tool again with the answer (${mode})`, async () => {
      const runs: (ToolContext['answers'] | undefined)[] = [];
      const { agent, resume } = setup(steps, [makeAsking(runs), question], {}, mode);
      const first = await collect(agent.replyStream('Book'));
      const [raised] = submitted(first);
      expect(raised).toMatchObject({ name: 'question', state: 'submitted' });
      expect(JSON.parse(raised?.input ?? '')).toEqual({ text: 'Which room at Ritz?' });
      // The raising call stays open (allowed, not executing); its start was announced once.
      expect(storedCall(agent, 'tc1')?.state).toBe('allowed');
      expect(agent.state.reply?.executing).toEqual([]);
      expect(agent.state.reply?.raised).toEqual([{ id: raised?.id, by: 'tc1' }]);
      expect(resultTypes(eventsOfCall(first, 'tc1'))).toEqual(['TOOL_RESULT_START']);
      expect(types(eventsOfCall(first, raised?.id ?? ''))).toEqual(['TOOL_RESULT_START']);
      expect(first.at(-1)?.type).toBe('REQUIRE_EXTERNAL_EXECUTION');
      // The state survives a JSON round trip and the strict schema.
      expect(() => parseAgentState(JSON.parse(JSON.stringify(agent.state)))).not.toThrow();

      const next = resume(agent);
      const second = await collect(
        next.replyStream(
          external(replyIdOf(first), [
            resultFor({ id: raised?.id ?? '', name: 'question' }, 'Suite 7'),
          ]),
        ),
      );
      expect(runs).toHaveLength(2);
      expect(runs[1]?.map((answer) => answer.result.output)).toEqual(['Suite 7']);
      expect(runs[1]?.map((answer) => answer.call.name)).toEqual(['question']);
      expect(types(eventsOfCall(second, 'tc1'))).toEqual([
        'TOOL_RESULT_TEXT_DELTA',
        'TOOL_RESULT_END',
      ]);
      const results = storedResults(next);
      expect(results.find((result) => result.id === 'tc1')).toMatchObject({
        output: 'Booked Suite 7 at Ritz',
        state: 'success',
      });
      expect(ofType(second, 'REPLY_END')[0]?.finishedReason).toBe('completed');
    });
  }

  it('a raised call can be interrupted: both calls close as interrupted, one start each', async () => {
    const { agent } = setup(steps, [makeAsking(), question]);
    const first = await collect(agent.replyStream('Book'));
    const [raised] = submitted(first);
    const second = await collect(
      agent.replyStream(userInterruptEvent({ replyId: replyIdOf(first) })),
    );
    expect(types(eventsOfCall(second, 'tc1'))).toEqual([
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(types(eventsOfCall(second, raised?.id ?? ''))).toEqual([
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(storedResults(agent).map((result) => result.state)).toEqual([
      'interrupted',
      'interrupted',
    ]);
  });

  it('a state whose raised call is not in the reply message is refused', async () => {
    const { agent } = setup(steps, [makeAsking(), question]);
    await collect(agent.replyStream('Book'));
    const state: AgentState = JSON.parse(JSON.stringify(agent.state));
    if (state.reply === null) throw new Error('no reply');
    state.reply.raised = [{ id: 'nope', by: 'tc1' }];
    expect(() => parseAgentState(state)).toThrow(/reply\.raised\.0\.id/);
    expect(lastBlocks(agent).length).toBeGreaterThan(0);
  });
});
