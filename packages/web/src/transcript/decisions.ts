/** An audit record as the server sends it (plain JSON). */
type Record_ = Record<string, unknown>;

/**
 * What was decided about one call, as the audit trail says: who (a person,
 * or `null` for a rule or the mode), what, the denial's reason, and for an
 * edited call the model's proposal (`proposed`) and the input that ran
 * (`ran`).
 */
export type CallDecision = {
  verdict:
    | 'allowed'
    | 'always allowed'
    | 'edited'
    | 'denied'
    | 'answered'
    | 'skipped'
    | 'result sent'
    | 'error reported'
    | 'dismissed';
  by: string | null;
  reason?: string;
  proposed?: string;
  ran?: string;
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

function field(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || !(name in value)) return undefined;
  return Object.entries(value).find(([key]) => key === name)?.[1];
}

/**
 * The decision about each call of the session, by tool call id, read off
 * its audit trail (oldest first): the input a person edited, a denial with
 * its reason and who gave it, an allow, an external result.
 */
export function decisionsOf(records: readonly Record_[]): Map<string, CallDecision> {
  const decisions = new Map<string, CallDecision>();
  for (const record of records) {
    const id = text(record['toolCallId']);
    if (id === undefined) continue;
    const by = text(record['approver']) ?? null;
    const detail = record['detail'];
    const known = decisions.get(id);
    switch (record['decision']) {
      case 'input_edited': {
        const proposed = text(field(field(detail, 'before'), 'input'));
        const ran = text(field(field(detail, 'after'), 'input'));
        decisions.set(id, {
          verdict: 'edited',
          by,
          ...(proposed === undefined ? {} : { proposed }),
          ...(ran === undefined ? {} : { ran }),
        });
        break;
      }
      case 'confirmed':
        // An edit is confirmed too: keep what the edit said.
        if (known?.verdict !== 'edited') decisions.set(id, { verdict: 'allowed', by });
        break;
      case 'rule_added':
        decisions.set(id, { ...known, verdict: 'always allowed', by });
        break;
      case 'denied':
      case 'denied_by_rule':
      case 'denied_by_mode': {
        const reason = text(field(detail, 'reason'));
        decisions.set(id, { verdict: 'denied', by, ...(reason === undefined ? {} : { reason }) });
        break;
      }
      case 'executed': {
        if (field(detail, 'external') !== true) break;
        const state = field(detail, 'state');
        const askUser = record['toolName'] === 'AskUser';
        const verdict =
          state === 'error'
            ? 'error reported'
            : askUser
              ? state === 'interrupted'
                ? 'skipped'
                : 'answered'
              : 'result sent';
        decisions.set(id, { verdict, by });
        break;
      }
      case 'interrupted':
        if (known === undefined) decisions.set(id, { verdict: 'dismissed', by });
        break;
      default:
        break;
    }
  }
  return decisions;
}

/** A decision in words: "Denied by ada: keep my notes", "Allowed by ada", "Denied by a rule". */
export function decisionLine(decision: CallDecision): string {
  if (decision.by === null && decision.verdict === 'dismissed') return 'Interrupted';
  const who = decision.by === null ? 'a rule or the mode' : decision.by;
  const verdict =
    decision.verdict === 'edited'
      ? 'Edited and allowed'
      : decision.verdict.charAt(0).toUpperCase() + decision.verdict.slice(1);
  const reason = decision.reason === undefined ? '' : `: ${decision.reason}`;
  return `${verdict} by ${who}${reason}`;
}
