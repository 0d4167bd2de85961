import type { AgentState } from '../state/index.js';
import type { ResumeInfo } from '../telemetry/index.js';
import type { ReplyPlan } from './input.js';
import type { ExpirePlan } from './expiry.js';

/** The answers of a `USER_CONFIRM_RESULT`, in words: confirm, deny, edit (an input changed), partial. */
function confirmAnswer(state: AgentState, plan: Extract<ReplyPlan, { kind: 'confirm' }>): string {
  const words = new Set<string>();
  const last = state.context.at(-1);
  const calls = typeof last?.content === 'string' ? [] : (last?.content ?? []);
  const asking = calls.filter((block) => block.type === 'tool_call' && block.state === 'asking');
  for (const result of plan.event.confirmResults) {
    const stored = asking.find(
      (block) => block.type === 'tool_call' && block.id === result.toolCall.id,
    );
    if (!result.confirmed) words.add('deny');
    else if (stored?.type === 'tool_call' && stored.input !== result.toolCall.input)
      words.add('edit');
    else words.add('confirm');
  }
  if (plan.event.confirmResults.length < asking.length) words.add('partial');
  return [...words].sort().join(',');
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
