import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  Agent,
  AgentParkedError,
  AskUser,
  InvalidEventError,
  InvalidToolResultError,
  NotWaitingError,
  ParleyError,
  StaleReplyError,
  Toolkit,
  UnknownToolCallError,
  askUserResult,
  checkAskUserAnswers,
  parseToolInput,
} from '../src/index.js';
import type {
  AgentEvent,
  AskUserInput,
  PermissionRule,
  ReplyInput,
  ToolCallBlock,
  ToolResultBlock,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import {
  allowDeploy,
  deploy,
  makeFetch,
  makeLookup,
  makeWriteNote,
  resultFor,
  roundTrip,
} from './support.js';

// Thousands of malformed or mismatched inputs against parked agents: every one
// must be refused with a ParleyError of a stable code, before any event, and
// leave the state exactly as it was (SPEC 1, 5, 8).

type ErrorClass = abstract new (...args: never[]) => ParleyError;
type Expected = { type: ErrorClass; code: string; check?: (error: ParleyError) => void };
type Case = { input: unknown; expected: Expected };

const colours = (text: string) => ({
  question: text,
  header: 'Colour',
  options: [
    { label: 'Red', description: 'warm' },
    { label: 'Blue', description: 'cool' },
  ],
});
const sizes = {
  question: 'Which sizes?',
  header: 'Sizes',
  multiSelect: true,
  options: [
    { label: 'S', description: 'small' },
    { label: 'M', description: 'medium' },
    { label: 'L', description: 'large' },
  ],
};

/** A parked agent and what it waits for. */
type Parked = {
  name: string;
  agent: Agent;
  replyId: string;
  calls: ToolCallBlock[];
  asking: ToolCallBlock[];
  submitted: ToolCallBlock[];
  /** The AskUser input of each submitted call. */
  questions: Map<string, AskUserInput>;
  parkedMessage: string;
};

async function park(name: string, toolCalls: { id: string; name: string; input: unknown }[]) {
  const model = new ScriptedModel([
    { toolCalls: toolCalls.map((c) => ({ ...c, input: c.input as Record<string, unknown> })) },
    { text: 'finished' },
  ]);
  const toolkit = new Toolkit([makeFetch(), makeLookup(), makeWriteNote(), deploy, AskUser]);
  const agent = new Agent({ model, toolkit, permission: { rules: [allowDeploy] } });
  const events: AgentEvent[] = [];
  for await (const event of agent.replyStream('go')) events.push(event);
  const reply = agent.state.reply;
  if (reply?.status !== 'parked') throw new Error(`${name} did not park`);
  const last = agent.state.context.at(-1)!;
  const calls = (last.content as ToolCallBlock[]).filter((block) => block.type === 'tool_call');
  const asking = calls.filter((call) => call.state === 'asking');
  const submitted = calls.filter((call) => call.state === 'submitted');
  const questions = new Map<string, AskUserInput>();
  for (const call of submitted) {
    const parsed = parseToolInput(AskUser, call.input);
    if (parsed.ok) questions.set(call.id, parsed.input);
  }
  return {
    name,
    agent,
    replyId: reply.replyId,
    calls,
    asking,
    submitted,
    questions,
    parkedMessage: `Agent is waiting for ${asking.length} tool calls and external execution results for ${submitted.length} tool calls, but received no event.`,
  } satisfies Parked;
}

let parkedAgents: Parked[] = [];
let idle: { agent: Agent; replyId: string; calls: ToolCallBlock[] };

beforeAll(async () => {
  parkedAgents = [
    // asking only: two prompts, a finished read-only call, a later batch pending
    await park('confirm-parked', [
      { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
      { id: 'f2', name: 'fetch', input: { url: 'https://b.example/1' } },
      { id: 'k1', name: 'lookup', input: { key: 'k' } },
      { id: 'w1', name: 'write_note', input: { path: 'p', content: 'c' } },
    ]),
    // submitted only: two AskUser calls, a later deploy pending
    await park('external-parked', [
      { id: 'q1', name: 'AskUser', input: { questions: [colours('Which colour?'), sizes] } },
      { id: 'q2', name: 'AskUser', input: { questions: [colours('Which accent?')] } },
      { id: 'd1', name: 'deploy', input: { env: 'prod' } },
    ]),
    // both
    await park('both-parked', [
      { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
      { id: 'q1', name: 'AskUser', input: { questions: [colours('Which colour?')] } },
      { id: 'k1', name: 'lookup', input: { key: 'k' } },
    ]),
  ];
  const finished = await park('idle', [
    { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
  ]);
  await finished.agent.reply({
    type: 'USER_CONFIRM_RESULT',
    replyId: finished.replyId,
    confirmResults: [{ confirmed: true, toolCall: finished.asking[0]! }],
  });
  idle = { agent: finished.agent, replyId: finished.replyId, calls: finished.calls };
});

/** The text of the first question of an AskUser call. */
function firstQuestion(call: ToolCallBlock): string {
  const parsed = parseToolInput(AskUser, call.input);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.input.questions[0]!.question;
}

/** Sends the input through reply() and replyStream(); both must refuse it and change nothing. */
async function expectRefusal(agent: Agent, { input, expected }: Case): Promise<void> {
  const before = JSON.stringify(agent.state);
  const outcomes: unknown[] = [];
  outcomes.push(
    await agent.reply(input as ReplyInput).then(
      () => 'accepted',
      (error: unknown) => error,
    ),
  );
  let events = 0;
  outcomes.push(
    await (async () => {
      for await (const _ of agent.replyStream(input as ReplyInput)) events += 1;
      return 'accepted';
    })().catch((error: unknown) => error),
  );
  expect(events).toBe(0);
  for (const outcome of outcomes) {
    expect(outcome).toBeInstanceOf(ParleyError);
    expect(outcome).toBeInstanceOf(expected.type);
    const error = outcome as ParleyError;
    expect(error.code).toBe(expected.code);
    expect(error.message.length).toBeGreaterThan(10);
    expected.check?.(error);
  }
  expect(JSON.stringify(agent.state)).toBe(before);
}

// ---- arbitraries -----------------------------------------------------------

const safeKey = fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__');
const text = fc.string({ maxLength: 12 });
const metadata = fc.dictionary(safeKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const rule: fc.Arbitrary<PermissionRule> = fc.record({
  toolName: text,
  ruleContent: fc.option(text, { nil: null }),
  behavior: fc.constantFrom('allow', 'deny', 'ask'),
  source: text,
});
const toolCallWith = (id: fc.Arbitrary<string>): fc.Arbitrary<ToolCallBlock> =>
  fc.record({
    type: fc.constant('tool_call' as const),
    id,
    name: text,
    input: fc.string({ maxLength: 20 }),
    state: fc.constantFrom('pending', 'asking', 'allowed', 'submitted', 'finished'),
    suggestedRules: fc.array(rule, { maxLength: 2 }),
  });
const confirmResultWith = (id: fc.Arbitrary<string>) =>
  fc
    .record({
      confirmed: fc.boolean(),
      toolCall: toolCallWith(id),
      rules: fc.option(fc.array(rule, { maxLength: 2 }), { nil: null }),
      reason: text,
    })
    .chain((result) =>
      // optional fields present or absent
      fc
        .record({ keepRules: fc.boolean(), keepReason: fc.boolean() })
        .map(({ keepRules, keepReason }) => {
          const { rules, reason, ...rest } = result;
          return {
            ...rest,
            ...(keepRules ? { rules } : {}),
            ...(keepReason ? { reason } : {}),
          };
        }),
    );
const resultWith = (id: fc.Arbitrary<string>, name: fc.Arbitrary<string>) =>
  fc
    .record({
      id,
      name,
      output: fc.oneof(
        text,
        fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 2 }),
      ),
      state: fc.constantFrom('success', 'error', 'interrupted', 'denied'),
      metadata,
      keepMetadata: fc.boolean(),
    })
    .map(({ keepMetadata, metadata: meta, ...rest }): ToolResultBlock => ({
      type: 'tool_result',
      ...rest,
      ...(keepMetadata ? { metadata: meta } : {}),
    }));
const envelope = fc.record({
  id: fc.option(text, { nil: undefined }),
  createdAt: fc.option(text, { nil: undefined }),
});
const stamp = (value: { id: string | undefined; createdAt: string | undefined }) => ({
  ...(value.id === undefined ? {} : { id: value.id }),
  ...(value.createdAt === undefined ? {} : { createdAt: value.createdAt }),
});

const confirmEvent = (replyId: fc.Arbitrary<string>, id: fc.Arbitrary<string>) =>
  fc
    .record({
      replyId,
      confirmResults: fc.array(confirmResultWith(id), { maxLength: 4 }),
      env: envelope,
    })
    .map(({ env, ...event }) => ({
      type: 'USER_CONFIRM_RESULT' as const,
      ...stamp(env),
      ...event,
    }));
const externalEvent = (
  replyId: fc.Arbitrary<string>,
  id: fc.Arbitrary<string>,
  name: fc.Arbitrary<string>,
) =>
  fc
    .record({
      replyId,
      executionResults: fc.array(resultWith(id, name), { maxLength: 4 }),
      env: envelope,
    })
    .map(({ env, ...event }) => ({
      type: 'EXTERNAL_EXECUTION_RESULT' as const,
      ...stamp(env),
      ...event,
    }));
const interruptEvent = (replyId: fc.Arbitrary<string>) =>
  fc.record({ replyId, env: envelope }).map(({ env, replyId: id }) => ({
    type: 'USER_INTERRUPT' as const,
    ...stamp(env),
    replyId: id,
  }));

const anyId = (parked: Parked) =>
  fc.oneof(fc.constantFrom(...parked.calls.map((call) => call.id)), text);

// ---- properties ------------------------------------------------------------

describe('property: refused inputs leave a parked agent exactly as it was', () => {
  it('input that is not an event is refused with the parked message (agent_parked)', async () => {
    const notAnEvent = fc.oneof(
      fc.string(),
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.boolean(),
      fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: text }),
      fc.array(fc.record({ role: fc.constant('user'), content: text }), { maxLength: 3 }),
      fc.record({
        type: fc.oneof(
          text,
          fc.constantFrom('REQUIRE_USER_CONFIRM', 'REPLY_END', 'user_confirm_result', 'INTERRUPT'),
        ),
        replyId: text,
      }),
      fc
        .jsonValue({ maxDepth: 2 })
        .filter(
          (value) =>
            typeof value !== 'object' ||
            value === null ||
            Array.isArray(value) ||
            !['USER_CONFIRM_RESULT', 'EXTERNAL_EXECUTION_RESULT', 'USER_INTERRUPT'].includes(
              String((value as { type?: unknown }).type),
            ),
        ),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(parkedAgents.length - 1), notAnEvent, async (which, input) => {
        const parked = parkedAgents[which]!;
        await expectRefusal(parked.agent, {
          input,
          expected: {
            type: AgentParkedError,
            code: 'agent_parked',
            check: (error) => expect(error.message).toBe(parked.parkedMessage),
          },
        });
      }),
      { numRuns: 400 },
    );
  });

  it('an event for another reply is refused (stale_reply)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(parkedAgents.length - 1).chain((which) => {
          const parked = parkedAgents[which]!;
          const stale = text.filter((id) => id !== parked.replyId);
          return fc.tuple(
            fc.constant(which),
            fc.oneof(
              confirmEvent(stale, anyId(parked)),
              externalEvent(stale, anyId(parked), text),
              interruptEvent(stale),
            ),
          );
        }),
        async ([which, input]) => {
          const parked = parkedAgents[which]!;
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: StaleReplyError,
              code: 'stale_reply',
              check: (error) => {
                expect(error.message).toContain(`'${input.replyId}'`);
                expect(error.message).toContain(`'${parked.replyId}'`);
              },
            },
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ids that are not waiting are refused and listed (unknown_tool_call)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(parkedAgents.length - 1).chain((which) => {
          const parked = parkedAgents[which]!;
          const asking = new Set(parked.asking.map((call) => call.id));
          const submitted = new Set(parked.submitted.map((call) => call.id));
          const options: fc.Arbitrary<{ input: unknown; unknown: string[]; kind: string }>[] = [];
          const replyId = fc.constant(parked.replyId);
          if (asking.size > 0) {
            options.push(
              confirmEvent(replyId, anyId(parked))
                .filter((event) => event.confirmResults.some((r) => !asking.has(r.toolCall.id)))
                .map((event) => ({
                  input: event,
                  kind: 'UserConfirmResultEvent',
                  unknown: event.confirmResults
                    .map((r) => r.toolCall.id)
                    .filter((id) => !asking.has(id)),
                })),
            );
          }
          if (submitted.size > 0) {
            options.push(
              externalEvent(replyId, anyId(parked), text)
                .filter((event) => event.executionResults.some((r) => !submitted.has(r.id)))
                .map((event) => ({
                  input: event,
                  kind: 'ExternalExecutionResultEvent',
                  unknown: event.executionResults
                    .map((r) => r.id)
                    .filter((id) => !submitted.has(id)),
                })),
            );
          }
          return fc.tuple(fc.constant(which), fc.oneof(...options));
        }),
        async ([which, { input, unknown, kind }]) => {
          const parked = parkedAgents[which]!;
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: UnknownToolCallError,
              code: 'unknown_tool_call',
              check: (error) => {
                expect(error.message).toBe(
                  `Received ${kind} with tool call ids ${JSON.stringify(unknown)} that are not waiting for ${
                    kind === 'UserConfirmResultEvent' ? 'confirmation' : 'external execution'
                  }.`,
                );
                expect((error as UnknownToolCallError).toolCallIds).toEqual(unknown);
              },
            },
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('an event of the kind the agent is not waiting for is refused with its JSON (not_waiting)', async () => {
    const [confirmParked, externalParked] = parkedAgents;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(
            fc.constant(1),
            confirmEvent(fc.constant(externalParked!.replyId), anyId(externalParked!)),
          ),
          fc.tuple(
            fc.constant(0),
            externalEvent(fc.constant(confirmParked!.replyId), anyId(confirmParked!), text),
          ),
        ),
        async ([which, input]) => {
          const parked = parkedAgents[which]!;
          const [prefix, kind] =
            input.type === 'USER_CONFIRM_RESULT'
              ? [
                  'Agent is not waiting for user confirmation, but received ',
                  'UserConfirmResultEvent',
                ]
              : [
                  'Agent is not waiting for external execution results, but received ',
                  'ExternalExecutionResultEvent',
                ];
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: NotWaitingError,
              code: 'not_waiting',
              check: (error) => {
                expect(error.message.startsWith(`${prefix}${kind}: `)).toBe(true);
                // The message carries the input as JSON, where -0 is written as 0.
                expect(JSON.parse(error.message.slice(prefix.length + kind.length + 2))).toEqual(
                  JSON.parse(JSON.stringify(input)),
                );
              },
            },
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a call answered twice in one event is refused (invalid_event)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(parkedAgents.length - 1).chain((which) => {
          const parked = parkedAgents[which]!;
          const options: fc.Arbitrary<unknown>[] = [];
          if (parked.asking.length > 0) {
            const ids = fc.constantFrom(...parked.asking.map((call) => call.id));
            options.push(
              fc
                .tuple(ids, fc.array(ids, { maxLength: 2 }))
                .chain(([twice, others]) =>
                  fc.shuffledSubarray([twice, twice, ...others], { minLength: 2 + others.length }),
                )
                .chain((list) =>
                  fc
                    .tuple(...list.map((id) => confirmResultWith(fc.constant(id))))
                    .map((confirmResults) => ({
                      type: 'USER_CONFIRM_RESULT',
                      replyId: parked.replyId,
                      confirmResults,
                    })),
                ),
            );
          }
          if (parked.submitted.length > 0) {
            const ids = fc.constantFrom(...parked.submitted.map((call) => call.id));
            options.push(
              fc
                .tuple(ids, fc.array(ids, { maxLength: 2 }))
                .chain(([twice, others]) =>
                  fc.shuffledSubarray([twice, twice, ...others], { minLength: 2 + others.length }),
                )
                .chain((list) =>
                  fc
                    .tuple(...list.map((id) => resultWith(fc.constant(id), fc.constant('AskUser'))))
                    .map((executionResults) => ({
                      type: 'EXTERNAL_EXECUTION_RESULT',
                      replyId: parked.replyId,
                      executionResults,
                    })),
                ),
            );
          }
          return fc.tuple(fc.constant(which), fc.oneof(...options));
        }),
        async ([which, input]) => {
          const parked = parkedAgents[which]!;
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: InvalidEventError,
              code: 'invalid_event',
              check: (error) => expect(error.message).toMatch(/answered twice/),
            },
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a valid event broken in one place is refused, naming the place (invalid_event)', async () => {
    type Mutation = { path: (string | number)[]; op: 'delete' | 'set' | 'extra'; value?: unknown };
    const wrong = fc.constantFrom<unknown>(42, null, true, [], {}, 'text', [1]);
    const wrongFor = (kind: 'string' | 'boolean' | 'array' | 'nullableArray' | 'record' | 'enum') =>
      wrong.filter((value) => {
        switch (kind) {
          case 'string':
            return typeof value !== 'string';
          case 'boolean':
            return typeof value !== 'boolean';
          case 'array':
            return !Array.isArray(value);
          case 'nullableArray':
            return !Array.isArray(value) && value !== null;
          case 'record':
            return typeof value !== 'object' || value === null || Array.isArray(value);
          case 'enum':
            return true;
        }
      });

    /** Mutations that break a valid event for sure, with the path they break. */
    function mutations(event: Record<string, unknown>): fc.Arbitrary<Mutation> {
      const options: fc.Arbitrary<Mutation>[] = [
        fc.constant({ path: ['replyId'], op: 'delete' }),
        wrongFor('string').map((value) => ({ path: ['replyId'], op: 'set', value })),
        fc.constant({ path: ['replyID'], op: 'extra', value: 'x' }),
        wrongFor('record').map((value) => ({ path: ['metadata'], op: 'set', value })),
        wrongFor('string').map((value) => ({ path: ['id'], op: 'set', value })),
      ];
      if (event['type'] === 'USER_CONFIRM_RESULT') {
        const results = event['confirmResults'] as unknown[];
        options.push(fc.constant({ path: ['confirmResults'], op: 'delete' }));
        options.push(
          wrongFor('array').map((value) => ({ path: ['confirmResults'], op: 'set', value })),
        );
        results.forEach((_, i) => {
          const at = ['confirmResults', i];
          options.push(
            fc
              .constantFrom('confirmed', 'toolCall')
              .map((key) => ({ path: [...at, key], op: 'delete' })),
            wrongFor('boolean').map((value) => ({ path: [...at, 'confirmed'], op: 'set', value })),
            wrongFor('nullableArray').map((value) => ({
              path: [...at, 'rules'],
              op: 'set',
              value,
            })),
            wrongFor('string').map((value) => ({ path: [...at, 'reason'], op: 'set', value })),
            fc.constant({ path: [...at, 'approved'], op: 'extra', value: true }),
            fc
              .constantFrom('type', 'id', 'name', 'input', 'state', 'suggestedRules')
              .map((key) => ({ path: [...at, 'toolCall', key], op: 'delete' })),
            fc.constantFrom('id', 'name', 'input').chain((key) =>
              wrongFor('string').map((value) => ({
                path: [...at, 'toolCall', key],
                op: 'set',
                value,
              })),
            ),
            fc.constantFrom<unknown>('bogus', 'ASKING', 3).map((value) => ({
              path: [...at, 'toolCall', 'state'],
              op: 'set',
              value,
            })),
            fc.constant({ path: [...at, 'toolCall', 'extra'], op: 'extra', value: 1 }),
            fc.constant({
              path: [...at, 'toolCall', 'suggestedRules'],
              op: 'set',
              value: [{ toolName: 'x', behavior: 'allow', source: 's' }],
            }),
            fc.constant({
              path: [...at, 'rules'],
              op: 'set',
              value: [{ toolName: 'x', ruleContent: null, behavior: 'maybe', source: 's' }],
            }),
          );
        });
      }
      if (event['type'] === 'EXTERNAL_EXECUTION_RESULT') {
        const results = event['executionResults'] as unknown[];
        options.push(fc.constant({ path: ['executionResults'], op: 'delete' }));
        options.push(
          wrongFor('array').map((value) => ({ path: ['executionResults'], op: 'set', value })),
        );
        results.forEach((_, i) => {
          const at = ['executionResults', i];
          options.push(
            fc
              .constantFrom('type', 'id', 'name', 'output', 'state')
              .map((key) => ({ path: [...at, key], op: 'delete' })),
            fc
              .constantFrom('id', 'name')
              .chain((key) =>
                wrongFor('string').map((value) => ({ path: [...at, key], op: 'set', value })),
              ),
            fc.constantFrom<unknown>('done', 'SUCCESS', 1, null).map((value) => ({
              path: [...at, 'state'],
              op: 'set',
              value,
            })),
            fc
              .constantFrom<unknown>(5, null, {}, [{ type: 'video' }], [{ type: 'text' }])
              .map((value) => ({
                path: [...at, 'output'],
                op: 'set',
                value,
              })),
            wrongFor('record').map((value) => ({ path: [...at, 'metadata'], op: 'set', value })),
            fc.constant({ path: [...at, 'result'], op: 'extra', value: 'x' }),
          );
        });
      }
      return fc.oneof(...options);
    }

    function apply(event: Record<string, unknown>, mutation: Mutation): Record<string, unknown> {
      const copy = structuredClone(event);
      let target = copy as Record<string | number, unknown>;
      for (const key of mutation.path.slice(0, -1))
        target = target[key] as Record<string | number, unknown>;
      const last = mutation.path.at(-1)!;
      if (mutation.op === 'delete') delete target[last];
      else target[last] = mutation.value;
      return copy;
    }

    const validFor = (parked: Parked): fc.Arbitrary<Record<string, unknown>> => {
      const replyId = fc.constant(parked.replyId);
      const options: fc.Arbitrary<Record<string, unknown>>[] = [interruptEvent(replyId)];
      if (parked.asking.length > 0) {
        const ids = fc.constantFrom(...parked.asking.map((call) => call.id));
        options.push(
          fc
            .uniqueArray(ids, { minLength: 1, maxLength: parked.asking.length })
            .chain((list) => fc.tuple(...list.map((id) => confirmResultWith(fc.constant(id)))))
            .map((confirmResults) => ({
              type: 'USER_CONFIRM_RESULT',
              replyId: parked.replyId,
              confirmResults,
            })),
        );
      }
      if (parked.submitted.length > 0) {
        options.push(
          fc.subarray(parked.submitted, { minLength: 1 }).map((calls) => ({
            type: 'EXTERNAL_EXECUTION_RESULT',
            replyId: parked.replyId,
            executionResults: calls.map((call) =>
              askUserResult(call, [
                {
                  question: parked.questions.get(call.id)!.questions[0]!.question,
                  selected: ['Red'],
                  other: null,
                },
              ]),
            ),
          })),
        );
      }
      return fc.oneof(...options);
    };

    await fc.assert(
      fc.asyncProperty(
        fc.nat(parkedAgents.length - 1).chain((which) => {
          const parked = parkedAgents[which]!;
          return validFor(parked).chain((event) =>
            mutations(event).map((mutation) => ({ which, event, mutation })),
          );
        }),
        async ({ which, event, mutation }) => {
          const parked = parkedAgents[which]!;
          const input = apply(event, mutation);
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: InvalidEventError,
              code: 'invalid_event',
              check: (error) => {
                const path = (error as InvalidEventError).path;
                expect(error.message.startsWith('Invalid event: ')).toBe(true);
                expect(error.message).toContain(path);
                expect(path.split('.')[0]).toBe(String(mutation.path[0]));
              },
            },
          });
        },
      ),
      { numRuns: 700 },
    );
  });

  it('answers that do not fit the questions, or results that do not fit their call, are refused (invalid_tool_result)', async () => {
    const withQuestions = parkedAgents.filter((parked) => parked.submitted.length > 0);
    const answer = (labels: string[], questions: string[]) =>
      fc.record({
        question: fc.oneof(fc.constantFrom(...questions), text),
        selected: fc.array(fc.oneof(fc.constantFrom(...labels), text), { maxLength: 3 }),
        other: fc.option(text, { nil: null }),
      });
    await fc.assert(
      fc.asyncProperty(
        fc.nat(withQuestions.length - 1).chain((which) => {
          const parked = withQuestions[which]!;
          return fc.constantFrom(...parked.submitted).chain((call) => {
            const asked = parked.questions.get(call.id)!;
            const labels = asked.questions.flatMap((q) => q.options.map((o) => o.label));
            const questions = asked.questions.map((q) => q.question);
            const badMetadata = fc
              .oneof(
                fc.record({ answers: fc.array(answer(labels, questions), { maxLength: 3 }) }),
                metadata,
                fc.record({ answers: fc.array(metadata, { minLength: 1, maxLength: 2 }) }),
              )
              .filter((meta) => checkAskUserAnswers(asked, meta) !== undefined)
              .map((meta) => ({
                ...resultFor(call, 'answer'),
                metadata: meta,
              }));
            const badResult = fc.oneof(
              badMetadata,
              text
                .filter((name) => name !== 'AskUser')
                .map((name) => ({ ...resultFor(call, 'x'), name })),
              fc.constant({ ...resultFor(call, 'x'), state: 'running' as const }),
            );
            // a good result for another submitted call may come along: nothing of it is applied
            const others = parked.submitted.filter((other) => other.id !== call.id);
            const companion =
              others.length === 0
                ? fc.constant([] as ToolResultBlock[])
                : fc.subarray(
                    others.map((other) =>
                      askUserResult(other, [
                        {
                          question: parked.questions.get(other.id)!.questions[0]!.question,
                          selected: ['Blue'],
                          other: null,
                        },
                      ]),
                    ),
                  );
            return fc.tuple(
              fc.constant(which),
              fc.constant(call.id),
              badResult,
              companion,
              fc.boolean(),
            );
          });
        }),
        async ([which, callId, bad, companion, badFirst]) => {
          const parked = withQuestions[which]!;
          const input = {
            type: 'EXTERNAL_EXECUTION_RESULT',
            replyId: parked.replyId,
            executionResults: badFirst ? [bad, ...companion] : [...companion, bad],
          };
          await expectRefusal(parked.agent, {
            input,
            expected: {
              type: InvalidToolResultError,
              code: 'invalid_tool_result',
              check: (error) => {
                expect((error as InvalidToolResultError).toolCallId).toBe(callId);
                expect(error.message).toContain(`'${callId}'`);
              },
            },
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('events while idle are refused (not_waiting); an interrupt is a no-op', async () => {
    const ids = fc.oneof(fc.constantFrom(...idle.calls.map((call) => call.id)), text);
    const replyId = fc.oneof(fc.constant(idle.replyId), text);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          confirmEvent(replyId, ids),
          externalEvent(replyId, ids, text),
          interruptEvent(replyId),
        ),
        async (input) => {
          if (input.type === 'USER_INTERRUPT') {
            const before = JSON.stringify(idle.agent.state);
            const events: AgentEvent[] = [];
            for await (const event of idle.agent.replyStream(input)) events.push(event);
            expect(events).toEqual([]);
            expect(JSON.stringify(idle.agent.state)).toBe(before);
            return;
          }
          await expectRefusal(idle.agent, {
            input,
            expected: {
              type: NotWaitingError,
              code: 'not_waiting',
              check: (error) => expect(error.message).toMatch(/^Agent is not waiting for /),
            },
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('after all that, the parked agents still resume with valid events, also from JSON', async () => {
    for (const parked of parkedAgents) {
      const fresh = new Agent({
        model: new ScriptedModel([{ text: 'finished' }], { repeatLast: true }),
        toolkit: new Toolkit([makeFetch(), makeLookup(), makeWriteNote(), deploy, AskUser]),
        state: roundTrip(parked.agent.state),
      });
      for (const agent of [parked.agent, fresh]) {
        for (let step = 0; step < 10 && agent.state.reply !== null; step++) {
          const open = (agent.state.context.at(-1)!.content as ToolCallBlock[]).filter(
            (block) => block.type === 'tool_call' && block.state !== 'finished',
          );
          const asking = open.filter((call) => call.state === 'asking');
          const submitted = open.filter((call) => call.state === 'submitted');
          const replyId = agent.state.reply.replyId;
          const input: ReplyInput =
            asking.length > 0
              ? {
                  type: 'USER_CONFIRM_RESULT',
                  replyId,
                  confirmResults: asking.map((toolCall) => ({ confirmed: true, toolCall })),
                }
              : {
                  type: 'EXTERNAL_EXECUTION_RESULT',
                  replyId,
                  executionResults: submitted.map((call) =>
                    call.name === 'AskUser'
                      ? askUserResult(call, [
                          { question: firstQuestion(call), selected: ['Red'], other: null },
                        ])
                      : resultFor(call, 'done', { url: 'https://x' }),
                  ),
                };
          await agent.reply(input);
        }
        expect(agent.state.reply).toBeNull();
        expect(agent.state.context.at(-1)!.finishedReason).toBe('completed');
      }
    }
  });
});
