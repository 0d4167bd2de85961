import type { PermissionRule, ToolCallBlock } from '../message/index.js';
import type { AgentEvent } from '../event/index.js';
import { ruleNameMatches } from '../permission/index.js';
import { PERMISSION_ASKS_KEY, permissionAskOf, recordPermissionAsk } from '../permission/asks.js';
import type { Tool } from '../tool/index.js';
import { nowIso } from '../util/ids.js';
import { executeCall, startCall } from './acting.js';
import { mergeGenerators } from './merge.js';
import { evaluateCall, resolveCall } from './permission-step.js';
import type { Evaluated } from './permission-step.js';
import type { ReplyRun } from './reply-run.js';
import { closeCall } from './tool-result.js';

/** How acting on the current turn ended. */
export type TurnOutcome = 'done' | 'parked' | 'aborted';

/** The outcome of acting on a turn; when parked, the REQUIRE_* events still to emit. */
export type TurnResult = { outcome: TurnOutcome; parkEvents: AgentEvent[] };

type Batch = { concurrent: boolean; ids: string[] };
type Runnable = { call: ToolCallBlock } & Evaluated;
type Applied = 'closed' | 'ask' | 'external' | 'run';

/** A tool's own answer; one that throws is treated as not safe (run alone, in order). */
function concurrencySafe(tool: Tool<unknown>, input: unknown): boolean {
  try {
    return tool.isConcurrencySafe(input);
  } catch {
    return false;
  }
}

/** Consecutive calls grouped by concurrency safety (unknown tools and bad input count as safe). */
export function batchesOf(run: ReplyRun, calls: readonly ToolCallBlock[]): Batch[] {
  const batches: Batch[] = [];
  for (const call of calls) {
    const resolved = resolveCall(run, call);
    const concurrent = !resolved.ok || concurrencySafe(resolved.tool, resolved.input);
    const last = batches.at(-1);
    if (last?.concurrent === concurrent) last.ids.push(call.id);
    else batches.push({ concurrent, ids: [call.id] });
  }
  return batches;
}

const isWaiting = (call: ToolCallBlock): boolean =>
  call.state === 'asking' || call.state === 'submitted';

/** Whether a call waits: for the user, an external result, or a call it raised. */
const waitsIn = (run: ReplyRun, call: ToolCallBlock): boolean =>
  isWaiting(call) || (call.state === 'allowed' && run.openRaisedBy(call.id).length > 0);

/** Queues REQUIRE_EXTERNAL_EXECUTION for the open calls that `by` raised while it ran. */
function queueRaised(run: ReplyRun, by: string, parkEvents: AgentEvent[]): boolean {
  const raised = run.openRaisedBy(by);
  for (const call of raised) {
    parkEvents.push(run.event('REQUIRE_EXTERNAL_EXECUTION', { toolCalls: [eventCopy(call)] }));
  }
  return raised.length > 0;
}

/** Copy of a call for an event, so a consumer editing it cannot reach the state. */
const eventCopy = (call: ToolCallBlock): ToolCallBlock => ({
  ...call,
  suggestedRules: call.suggestedRules.map((rule) => ({ ...rule })),
});

/**
 * Step 3 of acting: turns a decision into a state. Denials close the call;
 * asks and external submissions queue their REQUIRE_* event for the park.
 */
function* applyDecision(
  run: ReplyRun,
  call: ToolCallBlock,
  evaluated: Evaluated,
  parkEvents: AgentEvent[],
): Generator<AgentEvent, Applied> {
  const { decision, tool } = evaluated;
  switch (decision.behavior) {
    case 'deny':
      yield* closeCall(run, call, decision.message, 'denied');
      return 'closed';
    case 'ask':
    case 'passthrough': {
      const asking = run.updateCall(call.id, {
        state: 'asking',
        suggestedRules: decision.suggestedRules ?? [],
      });
      const ask = permissionAskOf(decision);
      recordPermissionAsk(run.message, call.id, ask);
      const asks = call.id === '__proto__' ? {} : { [call.id]: { ...ask } };
      parkEvents.push(
        run.event('REQUIRE_USER_CONFIRM', {
          toolCalls: [eventCopy(asking)],
          metadata: { [PERMISSION_ASKS_KEY]: asks },
        }),
      );
      return 'ask';
    }
    case 'allow': {
      if (!tool.external) return 'run';
      yield run.event('TOOL_RESULT_START', { toolCallId: call.id, toolCallName: call.name });
      const submitted = run.updateCall(call.id, { state: 'submitted' });
      parkEvents.push(
        run.event('REQUIRE_EXTERNAL_EXECUTION', { toolCalls: [eventCopy(submitted)] }),
      );
      return 'external';
    }
  }
}

/** Starts the allowed calls, claims them with one checkpoint, then runs them (concurrently). */
async function* runAll(run: ReplyRun, runnable: Runnable[]): AsyncGenerator<AgentEvent> {
  if (runnable.length === 0) return;
  for (const item of runnable) yield* startCall(run, item.call);
  if (run.persists) await run.checkpoint('before_tool');
  const [only] = runnable;
  if (runnable.length === 1 && only !== undefined) {
    yield* executeCall(run, run.call(only.call.id), only);
    return;
  }
  yield* mergeGenerators(runnable.map((item) => executeCall(run, run.call(item.call.id), item)));
}

async function* runSequential(
  run: ReplyRun,
  batch: Batch,
  parkEvents: AgentEvent[],
): AsyncGenerator<AgentEvent, TurnOutcome> {
  for (const id of batch.ids) {
    if (run.signal.aborted) return 'aborted';
    const call = run.call(id);
    if (call.state === 'finished') continue;
    if (waitsIn(run, call)) return 'parked';
    const evaluation = await evaluateCall(run, call, call.state === 'allowed');
    if (!evaluation.ok) {
      yield* evaluation.events;
      continue;
    }
    const evaluated = evaluation.evaluated;
    const applied = yield* applyDecision(run, call, evaluated, parkEvents);
    if (applied === 'ask' || applied === 'external') return 'parked';
    if (applied === 'run') {
      yield* runAll(run, [{ call, ...evaluated }]);
      if (queueRaised(run, call.id, parkEvents)) return 'parked';
    }
  }
  return 'done';
}

/**
 * A concurrent batch: every call is evaluated (in the model's order) and
 * the allowed ones run together, even while a sibling asks. A non-safety ask
 * already covered by a rule suggested earlier in the same pass is not
 * surfaced; it stays pending and is evaluated again once nothing in the
 * batch is waiting.
 */
async function* runConcurrent(
  run: ReplyRun,
  batch: Batch,
  parkEvents: AgentEvent[],
): AsyncGenerator<AgentEvent, TurnOutcome> {
  for (;;) {
    if (run.signal.aborted) return 'aborted';
    const calls = batch.ids.map((id) => run.call(id));
    const waiting = calls.some((call) => waitsIn(run, call));
    const prompted: PermissionRule[] = [];
    const runnable: Runnable[] = [];
    for (const call of calls) {
      const confirmed =
        call.state === 'allowed' &&
        !run.reply.executing.includes(call.id) &&
        run.openRaisedBy(call.id).length === 0;
      if (!confirmed && (call.state !== 'pending' || waiting)) continue;
      const evaluation = await evaluateCall(run, call, confirmed);
      if (!evaluation.ok) {
        yield* evaluation.events;
        continue;
      }
      const evaluated = evaluation.evaluated;
      const { decision, tool, input } = evaluated;
      const asks = decision.behavior === 'ask' || decision.behavior === 'passthrough';
      const covered =
        asks &&
        decision.bypassImmune !== true &&
        prompted.some(
          (rule) =>
            ruleNameMatches(rule.toolName, call.name) &&
            (rule.ruleContent === null || tool.matchRule(rule.ruleContent, input)),
        );
      if (covered) continue;
      const applied = yield* applyDecision(run, call, evaluated, parkEvents);
      if (applied === 'ask') prompted.push(...(decision.suggestedRules ?? []));
      if (applied === 'run') runnable.push({ call, ...evaluated });
    }
    yield* runAll(run, runnable);
    for (const item of runnable) queueRaised(run, item.call.id, parkEvents);
    const after = batch.ids.map((id) => run.call(id));
    if (after.every((call) => call.state === 'finished')) return 'done';
    if (after.some((call) => waitsIn(run, call))) return 'parked';
  }
}

/** Parks the reply and persists it; the caller emits the REQUIRE_* events afterwards. */
async function park(run: ReplyRun): Promise<void> {
  run.reply.status = 'parked';
  run.reply.parkedAt = nowIso();
  run.trace?.parking(run.reply);
  await run.checkpoint('park');
}

/**
 * Acts on the current model turn (SPEC sections 3 and 4): batch by batch,
 * stopping at the first batch that parks. A parked reply is persisted before
 * its REQUIRE_* events are handed back, so whoever answers them finds it stored.
 */
export async function* actOnTurn(run: ReplyRun): AsyncGenerator<AgentEvent, TurnResult> {
  const parkEvents: AgentEvent[] = [];
  const calls = run.turnCalls();
  if (calls.every((call) => call.state === 'finished')) return { outcome: 'done', parkEvents };
  for (const batch of batchesOf(run, calls)) {
    const outcome = batch.concurrent
      ? yield* runConcurrent(run, batch, parkEvents)
      : yield* runSequential(run, batch, parkEvents);
    if (run.signal.aborted) return { outcome: 'aborted', parkEvents: [] };
    if (outcome === 'parked') {
      await park(run);
      return { outcome, parkEvents };
    }
  }
  return { outcome: 'done', parkEvents };
}

/** Closes every open call of the reply as interrupted (SPEC section 5). */
export function* interruptOpenCalls(run: ReplyRun, text: string): Generator<AgentEvent> {
  for (const call of run.openCalls()) yield* closeCall(run, call, text, 'interrupted');
}
