import { useCallback, useEffect, useRef, useState } from 'react';
import type { FormEvent, KeyboardEvent } from 'react';
import type {
  Api,
  SessionPermission,
  SessionSummary,
  ToolInfo,
  WaitingCall,
} from '../api/client.js';
import { ApiError } from '../api/client.js';
import { followSession } from '../api/event-stream.js';
import type { NumberedEvent } from '../api/event-stream.js';
import { confirmEvent, insteadOfWaiting, sendingNote, toolCallOf } from '../answers.js';
import { userInterruptEvent } from '@parley/core';
import {
  emptyTranscript,
  foldEvent,
  isRunning,
  transcriptOfMessages,
  withUserMessage,
  withoutEntry,
} from '../transcript/transcript.js';
import type { CallView, Transcript } from '../transcript/transcript.js';
import { AuditTimeline } from './audit-timeline.js';
import type { AuditEntry } from './audit-timeline.js';
import { Countdown } from './countdown.js';
import { RulesPanel } from './rules-panel.js';
import { TranscriptView } from './transcript-view.js';
import { WaitingCallCard, answeredBy } from './waiting-call-card.js';
import { answeredClass } from './answered-class.js';
import { decisionsOf } from '../transcript/decisions.js';
import { shortId } from './short-id.js';
import { problemInWords } from '../api/problem-words.js';

/** A card shown for a call: waiting, or answered (here or elsewhere) during this view. */
type Card = { replyId: string; call: WaitingCall; deadline: string | null; answered?: string };

/** Events after which the server's view of the session (waiting calls, audit) is read again. */
const refreshing = new Set([
  'REPLY_START',
  'REPLY_END',
  'REQUIRE_USER_CONFIRM',
  'REQUIRE_EXTERNAL_EXECUTION',
  'TOOL_RESULT_START',
]);

function callsOf(transcript: Transcript): Map<string, CallView> {
  const calls = new Map<string, CallView>();
  for (const entry of transcript.entries) {
    if (entry.kind !== 'reply') continue;
    for (const block of entry.blocks) if (block.kind === 'call') calls.set(block.id, block.call);
  }
  return calls;
}

/**
 * A session: its transcript streamed over SSE (resumed from the last event
 * after a drop; replayed from the first after a reload), the calls its
 * parked reply waits on (from the server's state, so a reload or another
 * tab shows the same), the message box, Stop while a reply runs, and its
 * permission mode, rules and audit trail.
 */
export function SessionView({ api, sessionId }: { api: Api; sessionId: string }) {
  const [transcript, setTranscript] = useState<Transcript>(emptyTranscript);
  const [summary, setSummary] = useState<SessionSummary | undefined>();
  const [cards, setCards] = useState<Card[]>([]);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [audit, setAudit] = useState<AuditEntry[]>([]);
  const [permission, setPermission] = useState<SessionPermission | undefined>();
  const [sandbox, setSandbox] = useState<'bubblewrap' | 'none' | undefined>();
  const [fatal, setFatal] = useState<string | undefined>();
  const [connection, setConnection] = useState<'open' | 'reconnecting' | 'connecting'>(
    'connecting',
  );
  const [message, setMessage] = useState('');
  const [sendError, setSendError] = useState<string | undefined>();
  const [batchBusy, setBatchBusy] = useState(false);
  // What became of the calls that just left "Waiting for you", in words.
  const [lastAnswer, setLastAnswer] = useState<string | undefined>();
  // Set once the person denied a call: the next card then takes the focus
  // on itself, not on its "Allow", so a second Enter never approves it.
  const [afterDenial, setAfterDenial] = useState(false);
  const waitingSection = useRef<HTMLElement>(null);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The cards as last rendered, so a refresh can compare them with the server's view.
  const cardsRef = useRef<Card[]>([]);
  const updateCards = useCallback((next: Card[]) => {
    cardsRef.current = next;
    setCards(next);
  }, []);

  const refresh = useCallback(async () => {
    try {
      const [current, trail, rules] = await Promise.all([
        api.session(sessionId),
        api.audit(sessionId),
        api.permission(sessionId),
      ]);
      setSummary(current);
      setAudit(trail.records);
      setPermission(rules);
      const waiting = current.waiting;
      const stillWaiting = new Set(waiting?.toolCalls.map((call) => call.id) ?? []);
      const old = cardsRef.current;
      const gone = old.filter(
        (card) => card.answered === undefined && !stillWaiting.has(card.call.id),
      );
      const known = new Set(old.map((card) => card.call.id));
      const added = (waiting?.toolCalls ?? [])
        .filter((call) => !known.has(call.id))
        .map((call) => ({
          replyId: waiting?.replyId ?? '',
          call,
          deadline: waiting?.deadline ?? null,
        }));
      const who = await Promise.all(
        gone.map((card) =>
          answeredBy(api, sessionId, card.call.id).catch(() => 'Answered elsewhere'),
        ),
      );
      const answers = new Map(gone.map((card, index) => [card.call.id, who[index]]));
      if (gone.length > 0) setLastAnswer(who.join('; '));
      updateCards([
        ...cardsRef.current.map((card) => {
          const answered = answers.get(card.call.id);
          return answered === undefined || card.answered !== undefined
            ? card
            : { ...card, answered };
        }),
        ...added.filter(
          (card) => !cardsRef.current.some((known) => known.call.id === card.call.id),
        ),
      ]);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 401)) {
        setFatal(
          error.status === 404
            ? 'No such session, or you may not see it.'
            : 'Your token was not accepted.',
        );
      }
    }
  }, [api, sessionId, updateCards]);

  const scheduleRefresh = useCallback(() => {
    clearTimeout(refreshTimer.current);
    refreshTimer.current = setTimeout(() => void refresh(), 50);
  }, [refresh]);

  useEffect(() => {
    api
      .sandbox()
      .then(setSandbox)
      .catch(() => setSandbox(undefined));
  }, [api]);

  useEffect(() => {
    const controller = new AbortController();
    setTranscript(emptyTranscript);
    updateCards([]);
    setFatal(undefined);
    void (async () => {
      try {
        const [{ messages }, { tools: list }] = await Promise.all([
          api.messages(sessionId),
          api.tools(sessionId),
        ]);
        if (controller.signal.aborted) return;
        setTranscript(transcriptOfMessages(messages));
        setTools(list);
      } catch (error) {
        setFatal(problemInWords(error));
        return;
      }
      await refresh();
      await followSession(
        { origin: api.origin, token: api.token, sessionId, after: 0, signal: controller.signal },
        {
          onEvent: ({ seq, event }: NumberedEvent) => {
            setTranscript((current) => foldEvent(current, seq, event));
            if (refreshing.has(event.type)) scheduleRefresh();
          },
          onConnection: setConnection,
          onFatal: (error) => setFatal(problemInWords(error)),
        },
      );
    })();
    return () => {
      controller.abort();
      clearTimeout(refreshTimer.current);
    };
  }, [api, sessionId, refresh, scheduleRefresh, updateCards]);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = message.trim();
    if (text === '') return;
    setSendError(undefined);
    setLastAnswer(undefined);
    const waitingNow = cardsRef.current.filter((card) => card.answered === undefined);
    // Shown at once, above the reply it starts; taken back if the server refuses it.
    const local = { kind: 'user' as const, id: `local-${Date.now()}`, name: 'you', text };
    if (waitingNow.length === 0) {
      setTranscript((current) => withUserMessage(current, local));
      setMessage('');
    }
    try {
      if (waitingNow.length > 0) {
        // A message while calls wait answers them: denied (or skipped) with it as the reason.
        const answers = insteadOfWaiting(waitingNow, text);
        for (const [index, input] of answers.entries()) {
          // Each answer but the last waits until the reply parks again for the next one.
          if (index < answers.length - 1) await api.answerAndWait(sessionId, input);
          else await api.postReply(sessionId, input);
        }
      } else {
        await api.postReply(sessionId, text);
      }
      setMessage('');
      updateCards(cardsRef.current.filter((card) => card.answered === undefined));
      scheduleRefresh();
    } catch (error) {
      setTranscript((current) => withoutEntry(current, local.id));
      setMessage((current) => (current === '' ? text : current));
      setSendError(problemInWords(error));
    }
  };
  const dismiss = async () => {
    const replyId = summary?.waiting?.replyId;
    if (replyId === undefined) return;
    setSendError(undefined);
    try {
      await api.postReply(sessionId, userInterruptEvent({ replyId }));
    } catch (error) {
      setSendError(problemInWords(error));
    } finally {
      scheduleRefresh();
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey) void send(event);
  };

  const calls = callsOf(transcript);
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
  const openCards = cards.filter((card) => card.answered === undefined);
  // Answered cards leave at once: the transcript says who decided what, and the audit trail.
  const shownCards = openCards;
  const decisions = decisionsOf(audit);
  const waitingIds = new Set(openCards.map((card) => card.call.id));
  const confirmable = openCards.filter((card) => card.call.awaiting === 'confirm');
  const running = summary?.status === 'running' || isRunning(transcript);

  const answerAll = async (allow: boolean) => {
    const first = confirmable[0];
    if (first === undefined) return;
    setBatchBusy(true);
    setAfterDenial(!allow);
    try {
      const decisions = confirmable.flatMap((card) => {
        const toolCall = toolCallOf(card.call);
        return toolCall === undefined
          ? []
          : [
              {
                toolCall,
                decision: allow
                  ? { kind: 'allow' as const }
                  : { kind: 'deny' as const, reason: '' },
              },
            ];
      });
      await api.postReply(sessionId, confirmEvent(first.replyId, decisions));
    } catch (error) {
      setSendError(problemInWords(error));
    } finally {
      setBatchBusy(false);
      scheduleRefresh();
    }
  };

  // When the control that had focus went away (its call was answered), focus
  // moves on to the next open call's first control, so the keyboard never
  // has to find its way back from the top of the page.
  // Right after a denial it lands on the next card itself, never on its "Allow".
  useEffect(() => {
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    waitingSection.current
      ?.querySelector<HTMLElement>(
        afterDenial
          ? '[data-open="true"] .confirm-card, [data-open="true"] input:not([type="hidden"])'
          : '[data-open="true"] input:not([type="hidden"]), [data-open="true"] button.primary',
      )
      ?.focus();
  });

  if (fatal !== undefined) {
    return (
      <section className="session" aria-label="Session">
        <p className="problem" role="alert">
          {fatal}
        </p>
        <a href="#/">Back to the sessions</a>
      </section>
    );
  }

  return (
    <div className="session-layout">
      <section className="session" aria-label="Session">
        <header className="session-header">
          <h1>
            Session <code>{shortId(sessionId)}</code>
          </h1>
          <span className={`badge status-${summary?.status ?? 'idle'}`}>
            {summary?.status ?? '…'}
          </span>
          {connection === 'reconnecting' ? (
            <span className="badge badge-error" role="status">
              reconnecting…
            </span>
          ) : null}
          {running ? (
            <button
              type="button"
              className="danger"
              onClick={() => void api.cancel(sessionId).then(scheduleRefresh)}
            >
              Stop
            </button>
          ) : null}
          {!running && summary?.status === 'waiting' ? (
            <button
              type="button"
              className="danger"
              title="Stop the reply: every waiting call is closed as interrupted"
              onClick={() => void dismiss()}
            >
              Dismiss
            </button>
          ) : null}
        </header>
        <TranscriptView transcript={transcript} context={{ waiting: waitingIds, decisions }} />
        {shownCards.length === 0 ? null : (
          <section ref={waitingSection} className="waiting" aria-label="Waiting for you">
            <h2>Waiting for you</h2>
            {summary?.waiting?.deadline === null ||
            summary?.waiting?.deadline === undefined ? null : (
              <Countdown deadline={summary.waiting.deadline} />
            )}
            {confirmable.length > 1 ? (
              <div className="actions batch" role="group" aria-label="The whole batch">
                <button type="button" disabled={batchBusy} onClick={() => void answerAll(true)}>
                  Allow all
                </button>
                <button
                  type="button"
                  className="danger"
                  disabled={batchBusy}
                  onClick={() => void answerAll(false)}
                >
                  Deny all
                </button>
              </div>
            ) : null}
            {shownCards.map((card, index) => (
              <div key={card.call.id} data-open={card.answered === undefined}>
                <WaitingCallCard
                  api={api}
                  sessionId={sessionId}
                  replyId={card.replyId}
                  call={card.call}
                  deadline={null}
                  ask={calls.get(card.call.id)?.ask}
                  schema={schemas.get(card.call.name)}
                  answered={card.answered}
                  autoFocus={
                    !afterDenial &&
                    index === shownCards.findIndex((open) => open.answered === undefined)
                  }
                  onSettled={(denied) => {
                    setAfterDenial(denied);
                    scheduleRefresh();
                  }}
                />
              </div>
            ))}
          </section>
        )}
        {lastAnswer === undefined ? null : (
          <p className={answeredClass(lastAnswer)} role="status">
            {lastAnswer}
          </p>
        )}
        <form className="composer" onSubmit={(event) => void send(event)}>
          <label htmlFor="message" className="visually-hidden">
            Message
          </label>
          <textarea
            id="message"
            rows={2}
            // Opening a session puts the cursor in the message box; a card that appears takes it.
            autoFocus
            value={message}
            placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
            onChange={(event) => setMessage(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <button type="submit" className="primary">
            Send
          </button>
          {openCards.length === 0 || message.trim() === '' ? null : (
            <p className="muted" id="message-note" role="note">
              {sendingNote(openCards, message.trim())}
            </p>
          )}
          {sendError === undefined ? null : (
            <p className="problem" role="alert">
              {sendError}
            </p>
          )}
        </form>
      </section>
      <aside className="session-side" aria-label="Permissions and audit">
        <RulesPanel
          permission={permission}
          sandbox={sandbox}
          onRevoke={async (rule) => {
            setPermission(await api.revokeRule(sessionId, rule));
            setAudit((await api.audit(sessionId)).records);
          }}
        />
        <AuditTimeline records={audit} />
      </aside>
    </div>
  );
}
