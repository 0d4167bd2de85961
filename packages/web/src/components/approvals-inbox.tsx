import type { Api, Approval } from '../api/client.js';
import { WaitingCallCard } from './waiting-call-card.js';
import { shortId } from './short-id.js';

/** Props of `ApprovalsInbox`. */
export type ApprovalsInboxProps = {
  api: Api;
  /** The waiting calls, as the app last read them (it polls). */
  approvals: Approval[] | undefined;
  onAnswered: () => void;
};

/**
 * Every waiting call the caller may answer, across sessions: the owner's
 * own, or every session's for an approver. Each is answered in place, with
 * the same cards as in the session.
 */
export function ApprovalsInbox({ api, approvals, onAnswered }: ApprovalsInboxProps) {
  return (
    <section className="inbox" aria-labelledby="inbox-heading">
      <header className="page-header">
        <h1 id="inbox-heading">Approvals</h1>
      </header>
      {approvals === undefined ? (
        <p className="muted">Loading…</p>
      ) : approvals.length === 0 ? (
        <p className="muted">Nothing is waiting for you.</p>
      ) : (
        <ul className="approval-list">
          {approvals.map((approval) => (
            <li key={approval.toolCall.id}>
              <p className="approval-session">
                Session{' '}
                <a href={`#/sessions/${approval.sessionId}`}>
                  <code>{shortId(approval.sessionId)}</code>
                </a>
              </p>
              <WaitingCallCard
                api={api}
                sessionId={approval.sessionId}
                replyId={approval.replyId}
                call={approval.toolCall}
                deadline={approval.deadline}
                onSettled={onAnswered}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
