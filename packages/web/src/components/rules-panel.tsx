import { useState } from 'react';
import type { Rule, SessionPermission } from '../api/client.js';
import { ruleInWords } from './rule-words.js';
import { problemInWords } from '../api/problem-words.js';

/** A rule without its source: what the server needs to find it. */
export type RuleKey = Pick<Rule, 'toolName' | 'ruleContent' | 'behavior'>;

/**
 * The session's permission mode, the sandbox Bash runs commands in (when
 * the server says), and its rules, each with a "Revoke" button
 * (named "Revoke rule <the rule in words>" for a screen reader), so a
 * person can read what "Always allow" added and take it back. `onRevoke`
 * sends the revocation and resolves once the rules are refreshed; a refusal
 * (the session is running a reply, the rule is already gone) is shown.
 */
export function RulesPanel({
  permission,
  sandbox,
  onRevoke,
}: {
  permission: SessionPermission | undefined;
  sandbox?: 'bubblewrap' | 'none' | undefined;
  onRevoke: (rule: RuleKey) => Promise<void>;
}) {
  const [pending, setPending] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const revoke = (rule: Rule, key: string): void => {
    setPending(key);
    setProblem(undefined);
    onRevoke({ toolName: rule.toolName, ruleContent: rule.ruleContent, behavior: rule.behavior })
      .catch((error: unknown) => {
        setProblem(problemInWords(error));
      })
      .finally(() => setPending(undefined));
  };
  return (
    <section aria-labelledby="rules-heading">
      <h2 id="rules-heading">Permissions</h2>
      <p>
        Mode: <strong>{permission?.mode ?? '…'}</strong>
      </p>
      {sandbox === undefined ? null : (
        <p>
          Sandbox: <strong>{sandbox}</strong>
          {sandbox === 'none' ? ' (Bash runs commands without one)' : null}
        </p>
      )}
      {permission === undefined || permission.rules.length === 0 ? (
        <p className="muted">No rules added yet.</p>
      ) : (
        <ul className="rules">
          {permission.rules.map((rule) => {
            const key = `${rule.behavior}:${rule.toolName}:${rule.ruleContent ?? ''}`;
            const words = ruleInWords(rule);
            return (
              <li key={key}>
                <span>{words}</span>{' '}
                {rule.source === 'policy' ? (
                  <span className="muted">(set by the operator)</span>
                ) : (
                  <button
                    type="button"
                    aria-label={`Revoke rule ${words}`}
                    disabled={pending === key}
                    onClick={() => revoke(rule, key)}
                  >
                    Revoke
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {problem === undefined ? null : (
        <p className="problem" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
