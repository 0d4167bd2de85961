import { useEffect, useState } from 'react';
import type { Api, SessionSummary } from '../api/client.js';
import { Countdown } from './countdown.js';
import { shortId } from './short-id.js';
import { problemInWords } from '../api/problem-words.js';

function Status({ session }: { session: SessionSummary }) {
  switch (session.status) {
    case 'idle':
      return <span className="badge status-idle">idle</span>;
    case 'running':
      return <span className="badge status-running">running</span>;
    case 'waiting':
      return (
        <span className="status-waiting-line">
          <span className="badge status-waiting">
            waiting since{' '}
            <time dateTime={session.updatedAt}>
              {new Date(session.updatedAt).toLocaleTimeString()}
            </time>
          </span>
          {session.waiting?.deadline === null || session.waiting?.deadline === undefined ? null : (
            <Countdown deadline={session.waiting.deadline} />
          )}
        </span>
      );
    default:
      return null;
  }
}

/** The caller's sessions, newest first, with their status, and "New session". */
export function SessionList({ api, navigate }: { api: Api; navigate: (hash: string) => void }) {
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .listSessions()
        .then((page) => {
          if (!live) return;
          setSessions(page.sessions);
          setNext(page.next);
        })
        .catch((caught: unknown) => setError(problemInWords(caught)));
    void load();
    const timer = setInterval(() => void load(), 5_000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api]);

  const create = async () => {
    try {
      const created = await api.createSession();
      navigate(`#/sessions/${created.id}`);
    } catch (caught) {
      setError(problemInWords(caught));
    }
  };
  const more = async () => {
    if (next === null) return;
    const page = await api.listSessions(next);
    setSessions((old) => [...(old ?? []), ...page.sessions]);
    setNext(page.next);
  };

  return (
    <section className="sessions" aria-labelledby="sessions-heading">
      <header className="page-header">
        <h1 id="sessions-heading">Sessions</h1>
        <button type="button" className="primary" onClick={() => void create()}>
          New session
        </button>
      </header>
      {error === undefined ? null : (
        <p className="problem" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined ? (
        <p className="muted">Loading…</p>
      ) : sessions.length === 0 ? (
        <p className="muted">No sessions yet. Start one with “New session”.</p>
      ) : (
        <ul className="session-list">
          {sessions.map((session) => (
            <li key={session.id}>
              <a href={`#/sessions/${session.id}`}>
                <code>{shortId(session.id)}</code>
              </a>
              <span className="muted">
                {`created ${new Date(session.createdAt).toLocaleString()} · ${session.lastSeq} events`}
              </span>
              <Status session={session} />
            </li>
          ))}
        </ul>
      )}
      {next === null ? null : (
        <button type="button" onClick={() => void more()}>
          More sessions
        </button>
      )}
    </section>
  );
}
