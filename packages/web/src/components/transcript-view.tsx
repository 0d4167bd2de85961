import type { ReplyBlock, Transcript } from '../transcript/transcript.js';
import { inputSummary, ToolInputView } from './tool-input-view.js';

const resultLabel: Record<string, string> = {
  success: 'succeeded',
  error: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
  running: 'running…',
};

function Block({ block }: { block: ReplyBlock }) {
  switch (block.kind) {
    case 'text':
      return <p className="text">{block.text}</p>;
    case 'thinking':
      // A redacted block's reasoning is encrypted: there is nothing to open.
      if (block.redacted === true) return <p className="thinking muted">reasoning (redacted)</p>;
      return (
        <details className="thinking">
          <summary>Thinking</summary>
          <p>{block.text}</p>
        </details>
      );
    case 'hint':
      return <p className="hint">{block.text}</p>;
    case 'data':
      return <p className="muted">{`[${block.mediaType}]`}</p>;
    case 'call': {
      const { call } = block;
      const state =
        call.result?.state ??
        (call.waiting === 'confirm'
          ? 'waiting for confirmation'
          : call.waiting === 'external'
            ? 'waiting for a result'
            : 'pending');
      const stateText = resultLabel[state] ?? state;
      return (
        <details className={`tool-call state-${call.result?.state ?? 'open'}`}>
          <summary>
            <span className="tool-name">{call.name}</span>{' '}
            <span className="muted">{inputSummary(call.name, call.input, 60)}</span>{' '}
            <span className={`badge badge-${call.result?.state ?? 'open'}`}>{stateText}</span>
          </summary>
          <ToolInputView name={call.name} input={call.input} />
          {call.result === undefined || call.result.text === '' ? null : (
            <pre className="tool-result">{call.result.text}</pre>
          )}
        </details>
      );
    }
    default:
      return assertNever(block);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected block ${JSON.stringify(value)}`);
}

/**
 * The conversation as it streams: the person's messages, and each reply's
 * text, thinking (collapsed), tool calls with their input and result state,
 * and hints. A log region, so what arrives is read out politely.
 */
export function TranscriptView({ transcript }: { transcript: Transcript }) {
  return (
    <ol className="transcript" aria-label="Transcript">
      {transcript.entries.map((entry) =>
        entry.kind === 'user' ? (
          <li key={entry.id} className="entry user">
            <span className="speaker">{entry.name}</span>
            <p className="text">{entry.text}</p>
          </li>
        ) : (
          <li key={entry.id} className={`entry reply status-${entry.status}`}>
            <span className="speaker">assistant</span>
            {entry.blocks.map((block) => (
              <Block key={block.id} block={block} />
            ))}
            {entry.status === 'running' ? <p className="muted working">working…</p> : null}
            {entry.error === undefined ? null : <p className="problem">{entry.error}</p>}
            {entry.finishedReason === 'interrupted' ? <p className="muted">Stopped.</p> : null}
          </li>
        ),
      )}
    </ol>
  );
}
