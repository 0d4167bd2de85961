import type { ToolCallBlock } from '@parley/core';
import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import type { Decision } from '../answers.js';
import { Countdown } from './countdown.js';
import { ruleInWords } from './rule-words.js';
import { SchemaForm } from './schema-form.js';
import { inputObject, inputSummary, ToolInputView } from './tool-input-view.js';
import { answeredClass } from './answered-class.js';

/** Props of `ConfirmCard`. */
export type ConfirmCardProps = {
  toolCall: ToolCallBlock;
  /** Why it asks (the permission decision's message). */
  ask?: string | undefined;
  /** The tool's input JSON Schema, for the edit form; a JSON box without it. */
  schema?: Record<string, unknown> | undefined;
  deadline?: string | null | undefined;
  /** Set once the call was answered, here or elsewhere: "answered by …" replaces the buttons. */
  answered?: string | undefined;
  busy?: boolean;
  error?: string | undefined;
  /** Focus the card's first button when it appears (a new question). */
  autoFocus?: boolean;
  onDecide: (decision: Decision) => void;
};

/**
 * A call waiting for confirmation: a group named after the tool and its
 * input, the input rendered for a person, why it asks, the rules "Always
 * allow" would add (in words), and Allow, Always allow, Deny (with a
 * "Reason" box) and Edit (a form generated from the tool's schema, in a
 * dialog, checked before it is sent).
 */
export function ConfirmCard({
  toolCall,
  ask,
  schema,
  deadline,
  answered,
  busy = false,
  error,
  autoFocus = false,
  onDecide,
}: ConfirmCardProps) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [editing, setEditing] = useState(false);
  const [jsonDraft, setJsonDraft] = useState(toolCall.input);
  const [jsonProblem, setJsonProblem] = useState<string | undefined>();
  const dialog = useRef<HTMLDialogElement>(null);
  const allow = useRef<HTMLButtonElement>(null);
  const reasonBox = useRef<HTMLInputElement>(null);
  const rules = toolCall.suggestedRules;

  useEffect(() => {
    if (autoFocus) allow.current?.focus();
  }, [autoFocus]);
  useEffect(() => {
    if (denying) reasonBox.current?.focus();
  }, [denying]);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (editing && !element.open) element.showModal();
    if (!editing && element.open) element.close();
  }, [editing]);

  const deny = (event: FormEvent) => {
    event.preventDefault();
    onDecide({ kind: 'deny', reason });
  };
  const sendJson = (event: FormEvent) => {
    event.preventDefault();
    if (inputObject(jsonDraft) === undefined) {
      setJsonProblem('The input must be a JSON object.');
      return;
    }
    setEditing(false);
    onDecide({ kind: 'edit', input: jsonDraft });
  };
  const name = `${toolCall.name}: ${inputSummary(toolCall.name, toolCall.input)}`;

  return (
    <fieldset
      // Focusable, so focus can land on the card rather than on "Allow" (after a denial).
      tabIndex={-1}
      className="card confirm-card"
      aria-busy={busy}
      aria-label={`${toolCall.name}: ${inputSummary(toolCall.name, toolCall.input)}`}
    >
      <legend>
        <span className="tool-name">{toolCall.name}</span>
      </legend>
      {answered === undefined ? (
        <ToolInputView name={toolCall.name} input={toolCall.input} />
      ) : null}
      {ask === undefined || answered !== undefined ? null : <p className="ask-message">{ask}</p>}
      {rules.length === 0 || answered !== undefined ? null : (
        <ul className="rules-suggested" aria-label="Always allow would add">
          {rules.map((rule) => (
            <li key={`${rule.toolName}:${rule.ruleContent ?? ''}`}>{ruleInWords(rule)}</li>
          ))}
        </ul>
      )}
      {deadline === null || deadline === undefined || answered !== undefined ? null : (
        <Countdown deadline={deadline} />
      )}
      {answered !== undefined ? (
        <p className={answeredClass(answered)} role="status">
          {answered}
        </p>
      ) : (
        <>
          <div className="actions" role="group" aria-label={`Answer ${name}`}>
            <button
              ref={allow}
              type="button"
              className="primary"
              disabled={busy}
              onClick={() => onDecide({ kind: 'allow' })}
            >
              Allow
            </button>
            <button
              type="button"
              disabled={busy || rules.length === 0}
              title={rules.length === 0 ? 'No rule is suggested for this call' : undefined}
              onClick={() => onDecide({ kind: 'always' })}
            >
              Always allow
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy}
              aria-expanded={denying}
              onClick={() => setDenying((open) => !open)}
            >
              Deny
            </button>
            <button type="button" disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </button>
          </div>
          {denying ? (
            <form className="deny-form" onSubmit={deny}>
              <label htmlFor={`${toolCall.id}-reason`}>Reason</label>
              <input
                ref={reasonBox}
                id={`${toolCall.id}-reason`}
                type="text"
                value={reason}
                placeholder="Optional: the model reads it"
                onChange={(event) => setReason(event.target.value)}
              />
              <button type="submit" className="danger" disabled={busy}>
                Send denial
              </button>
            </form>
          ) : null}
        </>
      )}
      {error === undefined ? null : (
        <p className="problem" role="alert">
          {error}
        </p>
      )}
      <dialog ref={dialog} aria-label={`Edit ${toolCall.name}`} onClose={() => setEditing(false)}>
        <h2>{`Edit ${toolCall.name}`}</h2>
        {editing && schema !== undefined ? (
          <SchemaForm
            schema={schema}
            initial={inputObject(toolCall.input) ?? {}}
            submitLabel="Allow edited"
            onCancel={() => setEditing(false)}
            onSubmit={(value) => {
              setEditing(false);
              onDecide({ kind: 'edit', input: JSON.stringify(value) });
            }}
          />
        ) : editing ? (
          <form className="schema-form" onSubmit={sendJson}>
            <label htmlFor={`${toolCall.id}-json`}>Input (JSON)</label>
            <textarea
              id={`${toolCall.id}-json`}
              rows={8}
              value={jsonDraft}
              onChange={(event) => setJsonDraft(event.target.value)}
            />
            {jsonProblem === undefined ? null : (
              <p className="problem" role="alert">
                {jsonProblem}
              </p>
            )}
            <div className="actions">
              <button type="submit" className="primary">
                Allow edited
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
          </form>
        ) : null}
      </dialog>
    </fieldset>
  );
}
