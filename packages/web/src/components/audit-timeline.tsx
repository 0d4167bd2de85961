/** An audit record as the server sends it (plain JSON). */
export type AuditEntry = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The reason a record gives (a denial's, a rule's or the mode's), or ''. */
function reasonOf(record: AuditEntry): string {
  const detail = record['detail'];
  if (typeof detail !== 'object' || detail === null || !('reason' in detail)) return '';
  return text(detail.reason);
}

/**
 * The session's audit trail as a timeline, newest last: when, who (a
 * person, or the rule or mode that decided), what, about which call, and
 * why when the record says (a denial's reason).
 */
export function AuditTimeline({ records }: { records: readonly AuditEntry[] }) {
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      {records.length === 0 ? (
        <p className="muted">Nothing decided yet.</p>
      ) : (
        <ol className="timeline">
          {records.map((record, index) => {
            const at = text(record['at']);
            const who = typeof record['approver'] === 'string' ? record['approver'] : 'policy';
            const reason = reasonOf(record);
            return (
              <li key={`${text(record['toolCallId'])}-${index}`}>
                <time dateTime={at}>{at === '' ? '' : new Date(at).toLocaleTimeString()}</time>{' '}
                <strong>{who}</strong> {text(record['decision']).replaceAll('_', ' ')}{' '}
                <span className="tool-name">{text(record['toolName'])}</span>
                {reason === '' ? null : <span className="reason">{`: “${reason}”`}</span>}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
