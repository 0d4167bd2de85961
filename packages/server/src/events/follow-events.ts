import type { EventFeed } from './event-feed.js';
import type { SessionLog, StoredEvent } from '../log/session-log.js';

/** How many stored events are read at a time while catching up. */
const PAGE = 500;

/**
 * The events of `sessionId` numbered above `after`, each once and in order:
 * first the stored ones, then those handed out but not yet stored, then
 * live ones as they happen: those of replies this process runs from its
 * feed, those of replies another process runs from the log's rows, read
 * each time the log announces an append (`SessionLog.watch`). Ends when
 * `signal` aborts, or once the event numbered by `end` (when given) has
 * been yielded.
 */
export async function* followEvents(
  log: SessionLog,
  feed: EventFeed,
  sessionId: string,
  after: number,
  signal: AbortSignal,
  end?: Promise<number>,
): AsyncGenerator<StoredEvent, void, undefined> {
  for await (const batch of followEventBatches(log, feed, sessionId, after, signal, end)) {
    yield* batch;
  }
}

/**
 * `followEvents` a batch at a time: each batch holds the events that were
 * at hand together (a page of stored ones, or live ones handed out in one
 * go), never empty, in order, so a stream can send them in one write.
 */
export async function* followEventBatches(
  log: SessionLog,
  feed: EventFeed,
  sessionId: string,
  after: number,
  signal: AbortSignal,
  end?: Promise<number>,
): AsyncGenerator<StoredEvent[], void, undefined> {
  const queue: StoredEvent[] = [];
  let wake: (() => void) | undefined;
  let endSeq: number | undefined;
  let last = after;
  /** Rows stored after `last` may exist that no feed event will bring: read the log. */
  let behind = false;
  const rouse = (): void => {
    wake?.();
  };
  const readLog = (): void => {
    behind = true;
    rouse();
  };
  // Listening starts before anything is read, so no append is missed. An
  // append of numbers the feed gave out was made here: its events come
  // from the feed (or, if it failed, `readLog` is called).
  const unwatch = await log.watch?.(sessionId, (seq) => {
    if (seq > last && seq > feed.numbered(sessionId)) readLog();
  });
  const subscription = feed.subscribe(
    sessionId,
    (event) => {
      queue.push(event);
      rouse();
    },
    readLog,
  );
  void end?.then((seq) => {
    endSeq = seq;
    rouse();
  });
  signal.addEventListener('abort', rouse);
  /** Every stored event after `last`, page by page. */
  async function* stored(): AsyncGenerator<StoredEvent[], void, undefined> {
    behind = false;
    for (;;) {
      const page = await log.events(sessionId, last, PAGE);
      if (signal.aborted) return;
      const top = page.at(-1);
      if (top !== undefined) {
        last = top.seq;
        yield page;
      }
      if (page.length < PAGE) return;
    }
  }
  try {
    // A reply running here has shown what came since `after`: no need to read it back.
    const recent = feed.recent(sessionId, after);
    const top = recent?.at(-1);
    if (recent === undefined) {
      yield* stored();
    } else if (top !== undefined) {
      last = top.seq;
      yield recent;
    }
    const backlog = [...subscription.pending, ...queue.splice(0)];
    for (;;) {
      let batch: StoredEvent[] = [];
      for (let event = backlog.shift(); event !== undefined; event = backlog.shift()) {
        if (signal.aborted) return;
        if (event.seq <= last) continue;
        if (event.seq > last + 1) {
          // A number skipped: the events between were stored by another
          // process (or never, after a crash); the rows say which.
          if (batch.length > 0) yield batch;
          batch = [];
          yield* stored();
          if (signal.aborted) return;
          if (event.seq <= last) continue;
        }
        last = event.seq;
        batch.push(event);
      }
      if (batch.length > 0) yield batch;
      if (behind && !signal.aborted) yield* stored();
      if (signal.aborted || (endSeq !== undefined && last >= endSeq)) return;
      if (queue.length === 0 && !behind) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      backlog.push(...queue.splice(0));
    }
  } finally {
    signal.removeEventListener('abort', rouse);
    subscription.unsubscribe();
    unwatch?.();
  }
}
