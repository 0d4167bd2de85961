import { useState } from 'react';
import type { Api, WaitingCall } from '../api/client.js';
import { ApiError } from '../api/client.js';
import { askUserEvent, confirmEvent, externalEvent, skipEvent, toolCallOf } from '../answers.js';
import type { Decision } from '../answers.js';
import { AskUserForm, askUserQuestions } from './ask-user-form.js';
import { answeredClass } from './answered-class.js';
import { ConfirmCard } from './confirm-card.js';
import { ExternalPanel } from './external-panel.js';
import { problemInWords } from '../api/problem-words.js';

/** What a person's decisions about one call come to, in words. */
export function decisionInWords(decisions: readonly string[]): string {
  if (decisions.includes('rule_added')) return 'always allowed';
  if (decisions.includes('input_edited')) return 'allowed an edited input';
  if (decisions.includes('confirmed')) return 'allowed';
  if (decisions.includes('denied')) return 'denied';
  if (decisions.includes('executed')) return 'sent the result';
  if (decisions.includes('interrupted')) return 'dismissed';
  return decisions.at(-1)?.replaceAll('_', ' ') ?? 'answered';
}

/** Who answered a call, from the session's audit trail ("Answered by ada: allowed"). */
export async function answeredBy(
  api: Pick<Api, 'audit'>,
  sessionId: string,
  toolCallId: string,
): Promise<string> {
  const { records } = await api.audit(sessionId);
  const decided = records.filter(
    (record) =>
      record['toolCallId'] === toolCallId &&
      typeof record['approver'] === 'string' &&
      record['decision'] !== 'asked',
  );
  const who = decided.at(-1)?.['approver'];
  if (typeof who !== 'string') return 'Answered elsewhere';
  const decisions = decided.map((record) => String(record['decision']));
  return `Answered by ${who}: ${decisionInWords(decisions)}`;
}

/** Props of `WaitingCallCard`: of the API, it posts answers and reads the audit trail. */
export type WaitingCallCardProps = {
  api: Pick<Api, 'postReply' | 'audit'>;
  sessionId: string;
  replyId: string;
  call: WaitingCall;
  deadline: string | null;
  ask?: string | undefined;
  schema?: Record<string, unknown> | undefined;
  /** Set when the call is known to be answered (here or elsewhere). */
  answered?: string | undefined;
  autoFocus?: boolean;
  /** After this card's answer went through (`denied` when it was a denial), or was refused as already given. */
  onSettled: (denied: boolean) => void;
};

/**
 * One waiting call with the control that answers it: a confirmation card,
 * the AskUser form, or the external call panel. It posts the answer; when
 * the server says the call was answered already (409), it shows who did.
 */
export function WaitingCallCard(props: WaitingCallCardProps) {
  const {
    api,
    sessionId,
    replyId,
    call,
    deadline,
    ask,
    schema,
    autoFocus = false,
    onSettled,
  } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [answered, setAnswered] = useState<string | undefined>();
  const toolCall = toolCallOf(call);
  const shownAnswer = props.answered ?? answered;

  const send = async (input: Parameters<Api['postReply']>[1], denied = false) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.postReply(sessionId, input);
      setAnswered(denied ? 'Answered by you: denied' : 'Answered by you');
      onSettled(denied);
    } catch (caught) {
      if (caught instanceof ApiError && (caught.status === 409 || caught.status === 410)) {
        setAnswered(
          caught.status === 410
            ? 'Expired before it was answered'
            : await answeredBy(api, sessionId, call.id).catch(() => 'Answered elsewhere'),
        );
        onSettled(false);
      } else {
        setError(problemInWords(caught));
      }
    } finally {
      setBusy(false);
    }
  };

  if (toolCall === undefined) {
    return <p className="problem">{`The call ${call.id} could not be read.`}</p>;
  }
  if (call.awaiting === 'confirm') {
    return (
      <ConfirmCard
        toolCall={toolCall}
        ask={ask}
        schema={schema}
        deadline={deadline}
        answered={shownAnswer}
        busy={busy}
        error={error}
        autoFocus={autoFocus}
        onDecide={(decision: Decision) =>
          void send(confirmEvent(replyId, [{ toolCall, decision }]), decision.kind === 'deny')
        }
      />
    );
  }
  const questions = toolCall.name === 'AskUser' ? askUserQuestions(toolCall.input) : undefined;
  if (questions !== undefined) {
    return (
      <section className="card ask-card" aria-label={`${toolCall.name} asks`}>
        {shownAnswer !== undefined ? (
          <p className={answeredClass(shownAnswer)} role="status">
            {shownAnswer}
          </p>
        ) : (
          <>
            <AskUserForm
              input={questions}
              busy={busy}
              onSubmit={(answers) => void send(askUserEvent(replyId, toolCall, answers))}
            />
            <div className="actions">
              <button
                type="button"
                disabled={busy}
                title="Answer nothing; the agent reads that you skipped the questions"
                onClick={() => void send(skipEvent(replyId, toolCall))}
              >
                Skip
              </button>
            </div>
          </>
        )}
        {error === undefined ? null : (
          <p className="problem" role="alert">
            {error}
          </p>
        )}
      </section>
    );
  }
  return (
    <ExternalPanel
      toolCall={toolCall}
      busy={busy}
      answered={shownAnswer}
      error={error}
      autoFocus={autoFocus}
      onResult={(text, state) => void send(externalEvent(replyId, toolCall, text, state))}
    />
  );
}
