import type { AgentEvent } from '../event/index.js';
import { looksLikeInputEvent, parseInputEvent } from '../event/index.js';
import type { AgentState } from '../state/index.js';
import type { Toolkit } from '../tool/index.js';
import { ReplyExpiredError, StaleReplyError } from '../errors/index.js';
import type { ReplyPlan } from './input.js';
import { planReply } from './input.js';
import type { AgentOptions, Checkpoint } from './options.js';
import type { ReplyRun } from './reply-run.js';
import { closeCall } from './tool-result.js';

/** What happens to a parked reply whose deadline passed (agent option `onExpire`). */
export type ExpiryAction = 'deny' | 'interrupt';

/** The agent's expiry options, resolved. */
export type ExpirySettings = {
  parkTimeout: number | undefined;
  onExpire: ExpiryAction;
  clock: () => Date;
};

/**
 * Settling an expired reply: its waiting calls are closed (`onExpire`), then
 * the reply goes on as after a denial, or ends as interrupted. With `then`,
 * new input arrived instead: the expired reply is closed and `then` runs.
 * With `refusal`, the input was a late answer: the reply is settled and
 * the answer refused afterwards.
 */
export type ExpirePlan = {
  kind: 'expire';
  onExpire: ExpiryAction;
  then?: ReplyPlan;
  refusal?: ReplyExpiredError;
};

/** Texts the model reads for calls closed by expiry. */
export const expiryTexts = {
  denied: (name: string) =>
    `<system-reminder>The execution of tool "${name}" is denied: the request for permission expired before anyone answered.</system-reminder>`,
  interrupted:
    '<system-reminder>The tool call has been interrupted: the request for permission expired before anyone answered.</system-reminder>',
  external: (name: string) =>
    `<system-reminder>The external execution of tool "${name}" expired before its result arrived; its outcome is unknown.</system-reminder>`,
} as const;

/** Resolves the expiry options of `new Agent(...)`. */
export function expirySettings(options: AgentOptions): ExpirySettings {
  const timeout = options.parkTimeout;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout >= 0)) {
    throw new RangeError(`parkTimeout must be a number of milliseconds >= 0, got ${timeout}.`);
  }
  return {
    parkTimeout: timeout,
    onExpire: options.onExpire ?? 'deny',
    clock: options.clock ?? (() => new Date()),
  };
}

/** Whether `state` has a parked reply whose deadline is at or before `now`. */
export function isReplyExpired(state: AgentState, now: Date): boolean {
  const reply = state.reply;
  if (reply?.status !== 'parked' || reply.deadline === undefined) return false;
  const deadline = Date.parse(reply.deadline);
  return !Number.isNaN(deadline) && deadline <= now.getTime();
}

/**
 * The checkpoint hook that stamps `reply.deadline` (clock + `parkTimeout`)
 * when the reply parks, so the deadline is in the state the `park`
 * checkpoint persists. Without a timeout a park clears an old deadline.
 */
export function withParkDeadline(
  checkpoint: Checkpoint | undefined,
  settings: ExpirySettings,
): Checkpoint | undefined {
  const timeout = settings.parkTimeout;
  if (timeout === undefined && checkpoint === undefined) return undefined;
  return async (state, reason) => {
    if (reason === 'park' && state.reply !== null) {
      if (timeout === undefined) delete state.reply.deadline;
      else state.reply.deadline = new Date(settings.clock().getTime() + timeout).toISOString();
    }
    if (checkpoint !== undefined) await checkpoint(state, reason);
  };
}

/**
 * What an input means for a reply that expired while parked, or undefined
 * when nothing expired. No input settles it; a late answer settles it and
 * is refused (`ReplyExpiredError`); new input closes it and starts a new
 * reply; an interrupt ends it as usual. Pure: the state is not touched.
 */
export function planExpiry(
  state: AgentState,
  toolkit: Toolkit,
  input: unknown,
  settings: ExpirySettings,
): ExpirePlan | undefined {
  const reply = state.reply;
  // Only a parked reply with a deadline can have expired: the clock is read for no other.
  if (reply?.deadline === undefined || !isReplyExpired(state, settings.clock())) return undefined;
  const onExpire = settings.onExpire;
  if (input === undefined || input === null) return { kind: 'expire', onExpire };
  if (looksLikeInputEvent(input)) {
    const event = parseInputEvent(input);
    if (event.replyId !== reply.replyId) throw new StaleReplyError(event.replyId, reply.replyId);
    if (event.type === 'USER_INTERRUPT') return undefined;
    const refusal = new ReplyExpiredError(state.sessionId, reply.replyId, reply.deadline ?? '');
    return { kind: 'expire', onExpire, refusal };
  }
  const then = planReply({ ...state, reply: { ...reply, status: 'running' } }, toolkit, input);
  return { kind: 'expire', onExpire, then };
}

/**
 * Closes the waiting calls of an expired reply: asking calls as `denied`
 * (`deny`) or `interrupted` (`interrupt`), submitted external calls as
 * `interrupted` (their outcome is unknown). Each result carries
 * `metadata.expired` with the deadline. Returns the events to emit.
 */
export function closeExpiredCalls(run: ReplyRun, onExpire: ExpiryAction): AgentEvent[] {
  const metadata = { expired: run.reply.deadline ?? true };
  const events: AgentEvent[] = [];
  for (const call of run.openCalls()) {
    if (call.state === 'asking') {
      const denied = onExpire === 'deny';
      const text = denied ? expiryTexts.denied(call.name) : expiryTexts.interrupted;
      events.push(...closeCall(run, call, text, denied ? 'denied' : 'interrupted', metadata));
    } else if (call.state === 'submitted') {
      events.push(
        ...closeCall(run, call, expiryTexts.external(call.name), 'interrupted', metadata),
      );
    }
  }
  return events;
}
