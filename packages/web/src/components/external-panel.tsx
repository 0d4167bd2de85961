import type { ToolCallBlock } from '@parley/core';
import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { inputSummary, ToolInputView } from './tool-input-view.js';
import { answeredClass } from './answered-class.js';

/** Props of `ExternalPanel`. */
export type ExternalPanelProps = {
  toolCall: ToolCallBlock;
  busy?: boolean;
  answered?: string | undefined;
  error?: string | undefined;
  autoFocus?: boolean;
  onResult: (text: string, state: 'success' | 'error') => void;
};

/**
 * A call a person runs outside the agent: its input, a "Result" box, and
 * "Send result" (success) or "Report error". Enter sends the result.
 */
export function ExternalPanel({
  toolCall,
  busy = false,
  answered,
  error,
  autoFocus = false,
  onResult,
}: ExternalPanelProps) {
  const [text, setText] = useState('');
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autoFocus) box.current?.focus();
  }, [autoFocus]);
  const send = (event: FormEvent) => {
    event.preventDefault();
    onResult(text, 'success');
  };
  return (
    <fieldset
      className="card external-panel"
      aria-busy={busy}
      aria-label={`${toolCall.name}: ${inputSummary(toolCall.name, toolCall.input)}`}
    >
      <legend>
        <span className="tool-name">{toolCall.name}</span>{' '}
        <span className="muted">runs outside the agent</span>
      </legend>
      {answered === undefined ? (
        <ToolInputView name={toolCall.name} input={toolCall.input} />
      ) : null}
      {answered !== undefined ? (
        <p className={answeredClass(answered)} role="status">
          {answered}
        </p>
      ) : (
        <form onSubmit={send}>
          <label htmlFor={`${toolCall.id}-result`}>Result</label>
          <input
            ref={box}
            id={`${toolCall.id}-result`}
            type="text"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              Send result
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => onResult(text, 'error')}
            >
              Report error
            </button>
          </div>
        </form>
      )}
      {error === undefined ? null : (
        <p className="problem" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
