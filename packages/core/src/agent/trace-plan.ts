import type { AgentState } from '../state/index.js';
import type { AnswerOutcome, ResumeInfo } from '../telemetry/index.js';
import type { ReplyPlan } from './input.js';
import type { ExpirePlan } from './expiry.js';

/** The answer to each call of a `USER_CONFIRM_RESULT`: confirmed, denied, or edited (an input changed). */
function confirmOutcomes(
  state: AgentState,
  plan: Extract<ReplyPlan, { kind: 'confirm' }>,
): { outcomes: AnswerOutcome[]; partial: boolean } {
  const last = state.context.at(-1);
  const calls = typeof last?.content === 'string' ? [] : (last?.content ?? []);
  const asking = calls.filter((block) => block.type === 'tool_call' && block.state === 'asking');
  const outcomes = plan.event.confirmResults.map((result): AnswerOutcome => {
    const stored = asking.find(
      (block) => block.type === 'tool_call' && block.id === result.toolCall.id,
    );
    if (!result.confirmed) return 'denied';
    if (stored?.type === 'tool_call' && stored.input !== result.toolCall.input) return 'edited';
    return 'confirmed';
  });
  return { outcomes, partial: plan.event.confirmResults.length < asking.length };
}

const confirmWords: Record<AnswerOutcome, string> = {
  confirmed: 'confirm',
  denied: 'deny',
  edited: 'edit',
  external: 'external',
  interrupted: 'interrupt',
  expired: 'expire',
};

/** The answers of a `USER_CONFIRM_RESULT`, in words: confirm, deny, edit (an input changed), partial. */
function confirmAnswer(state: AgentState, plan: Extract<ReplyPlan, { kind: 'confirm' }>): string {
  const { outcomes, partial } = confirmOutcomes(state, plan);
  const words = new Set(outcomes.map((outcome) => confirmWords[outcome]));
  if (partial) words.add('partial');
  return [...words].sort().join(',');
}

/**
 * What the answers of a resume were, one per answered call (one for an
 * interrupt or an expiry), as the `parley.reply.answers` metric counts them;
 * none for a run that is not a resume.
 */
export function answerOutcomes(state: AgentState, plan: ReplyPlan | ExpirePlan): AnswerOutcome[] {
  if (state.reply === null) return [];
  switch (plan.kind) {
    case 'confirm':
      return confirmOutcomes(state, plan).outcomes;
    case 'external':
      return plan.event.executionResults.map(() => 'external');
    case 'expire':
      return ['expired'];
    case 'interrupt':
      return ['interrupted'];
    case 'idle_interrupt':
    case 'continue':
    case 'new':
      return [];
  }
}

/** The answer a plan carries, in a word (span attribute `parley.resume.answer`). */
function answerOf(state: AgentState, plan: ReplyPlan | ExpirePlan): string {
  switch (plan.kind) {
    case 'confirm':
      return confirmAnswer(state, plan);
    case 'external':
      return 'external';
    case 'expire':
      return `expire:${plan.onExpire}`;
    case 'interrupt':
    case 'idle_interrupt':
      return 'interrupt';
    case 'continue':
    case 'new':
      return plan.kind;
  }
}

/**
 * What the trace of a run that goes on with a reply already there is told:
 * how it resumes, the answer, who gave it, the parked span and the wait.
 * `undefined` for a new reply.
 */
export function resumeInfo(
  state: AgentState,
  plan: ReplyPlan | ExpirePlan,
  approver: string | undefined,
  now: Date,
): ResumeInfo | undefined {
  const reply = state.reply;
  if (plan.kind === 'new' || plan.kind === 'idle_interrupt' || reply === null) return undefined;
  const info: ResumeInfo = { kind: plan.kind, answer: answerOf(state, plan) };
  if (approver !== undefined) info.approver = approver;
  if (reply.traceParent !== undefined) info.traceParent = reply.traceParent;
  const parkedAt = reply.parkedAt === undefined ? Number.NaN : Date.parse(reply.parkedAt);
  if (Number.isFinite(parkedAt)) info.waitSeconds = Math.max(0, (now.getTime() - parkedAt) / 1000);
  return info;
}
