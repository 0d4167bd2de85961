import type { CallDecision } from '../transcript/decisions.js';
import { decisionLine } from '../transcript/decisions.js';
import type { ReplyBlock, Transcript } from '../transcript/transcript.js';
import { DiffView } from './diff-view.js';
import { inputObject, inputSummary, ToolInputView } from './tool-input-view.js';

const resultLabel: Record<string, string> = {
  success: 'succeeded',
  error: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
  running: 'running…',
};

/** What the transcript knows beyond the events: the server's waiting calls and the audit's decisions. */
export type TranscriptContext = {
  /** Ids of the calls waiting for a person now. */
  waiting?: ReadonlySet<string>;
  /** The decision about each call, by id (from the audit trail). */
  decisions?: ReadonlyMap<string, CallDecision>;
};

/** An input as lines to diff: its JSON pretty-printed, one field a line. */
function diffable(input: string): string {
  const fields = inputObject(input);
  return fields === undefined ? input : `${JSON.stringify(fields, null, 2)}\n`;
}

function Block({ block, context }: { block: ReplyBlock; context: TranscriptContext }) {
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
      const decision = context.decisions?.get(call.id);
      // Waiting on a person (a confirmation, an external result, an AskUser
      // answer) until someone decided: never "running…" meanwhile.
      const waiting =
        decision === undefined &&
        (context.waiting?.has(call.id) === true || call.waiting !== undefined);
      // What ran: the person's edit when there was one, else the model's input.
      const input = decision?.ran ?? call.input;
      const state = waiting ? 'open' : (call.result?.state ?? 'open');
      const stateText = waiting
        ? 'waiting for you'
        : state === 'open'
          ? 'pending'
          : (resultLabel[state] ?? state);
      return (
        <details className={`tool-call state-${state}`}>
          <summary>
            <span className="tool-name">{call.name}</span>{' '}
            <span className="muted">{inputSummary(call.name, input, 60)}</span>{' '}
            <span className={`badge badge-${state}`}>{stateText}</span>
            {decision === undefined ? null : (
              <span className={`decision decision-${decision.verdict.replaceAll(' ', '-')}`}>
                {' '}
                {decisionLine(decision)}
              </span>
            )}
          </summary>
          <ToolInputView name={call.name} input={input} />
          {decision?.proposed === undefined || decision.ran === undefined ? null : (
            <DiffView
              label="the model's proposal, as edited"
              before={diffable(decision.proposed)}
              after={diffable(decision.ran)}
            />
          )}
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
 * text, thinking (collapsed), tool calls with the input that ran (a
 * person's edit shown as a diff of the model's proposal), who decided and
 * why, and their result state, and hints. A log region, so what arrives is read out politely.
 */
export function TranscriptView({
  transcript,
  context = {},
}: {
  transcript: Transcript;
  context?: TranscriptContext;
}) {
  return (
    <ol className="transcript" aria-label="Transcript">
      {transcript.entries.map((entry) =>
        entry.kind === 'user' ? (
          <li key={entry.id} className="entry user">
            {/* One label for the person's messages, sent here or read back after a reload. */}
            <span className="speaker">you</span>
            <p className="text">{entry.text}</p>
          </li>
        ) : (
          <li key={entry.id} className={`entry reply status-${entry.status}`}>
            <span className="speaker">assistant</span>
            {entry.blocks.map((block) => (
              <Block key={block.id} block={block} context={context} />
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
