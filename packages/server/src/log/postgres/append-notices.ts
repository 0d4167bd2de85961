import type { Notification, Pool, PoolClient } from 'pg';
import { escapeIdentifier } from 'pg';

/** An append announced on the channel: `sessionId` now has events stored through `seq`. */
export type AppendNotice = { sessionId: string; seq: number };

/**
 * The NOTIFY payload of an append: `'<sessionId>:<seq>'`. The number comes
 * last, so a session id may itself contain colons.
 */
export function formatAppendNotice(notice: AppendNotice): string {
  return `${notice.sessionId}:${notice.seq}`;
}

/** Reads a payload written by `formatAppendNotice`; `undefined` for anything else. */
export function parseAppendNotice(payload: string): AppendNotice | undefined {
  const colon = payload.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const digits = payload.slice(colon + 1);
  if (!/^[1-9]\d{0,14}$/.test(digits)) return undefined;
  return { sessionId: payload.slice(0, colon), seq: Number(digits) };
}

/** What `Number.MAX_SAFE_INTEGER` tells a listener: notices may have been missed, read the log. */
const RESYNC = Number.MAX_SAFE_INTEGER;

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * One LISTEN connection per process on the log's channel, shared by every
 * follower: notices are handed to the listeners of their session. The
 * connection is taken on the first `watch` and kept until `close`. When it
 * fails, the failure goes to `onError`, a new one is
 * taken (after `retryMs`), and every listener is told to read the log
 * again, since notices sent in between are lost.
 */
export class AppendNotices {
  private readonly listeners = new Map<string, Set<(seq: number) => void>>();
  private client: Promise<PoolClient> | undefined;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly onError: (error: Error) => void,
    private readonly retryMs = 1_000,
  ) {}

  /** Calls `listener` with each number announced for `sessionId`; resolves once listening. */
  async watch(sessionId: string, listener: (seq: number) => void): Promise<() => void> {
    let set = this.listeners.get(sessionId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(sessionId, set);
    }
    set.add(listener);
    const stop = (): void => {
      const current = this.listeners.get(sessionId);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(sessionId);
    };
    try {
      await this.connect();
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** Stops listening for good. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.release();
  }

  private connect(): Promise<PoolClient> {
    if (this.closed) return Promise.reject(new Error('The log is closed.'));
    this.client ??= this.listen().catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  private async listen(): Promise<PoolClient> {
    const client = await this.pool.connect();
    const onNotification = (message: Notification): void => {
      if (message.channel !== this.channel || message.payload === undefined) return;
      const notice = parseAppendNotice(message.payload);
      if (notice !== undefined) this.dispatch(notice.sessionId, notice.seq);
    };
    const onFailure = (error: Error): void => {
      client.off('notification', onNotification);
      client.off('error', onFailure);
      if (this.client === undefined) return;
      this.client = undefined;
      client.release(error);
      this.onError(error);
      this.reconnect();
    };
    client.on('notification', onNotification);
    client.on('error', onFailure);
    try {
      await client.query(`LISTEN ${escapeIdentifier(this.channel)}`);
    } catch (error) {
      client.off('notification', onNotification);
      client.off('error', onFailure);
      client.release(toError(error));
      throw error;
    }
    if (this.closed) {
      client.off('notification', onNotification);
      client.off('error', onFailure);
      client.on('error', () => undefined);
      client.release(true);
      throw new Error('The log is closed.');
    }
    return client;
  }

  private reconnect(): void {
    const timer = setTimeout(() => {
      if (this.closed || this.listeners.size === 0) return;
      this.connect().then(
        () => {
          for (const sessionId of this.listeners.keys()) this.dispatch(sessionId, RESYNC);
        },
        (error: unknown) => {
          this.onError(toError(error));
          this.reconnect();
        },
      );
    }, this.retryMs);
    timer.unref();
  }

  private dispatch(sessionId: string, seq: number): void {
    for (const listener of this.listeners.get(sessionId) ?? []) {
      try {
        listener(seq);
      } catch (error) {
        this.onError(toError(error));
      }
    }
  }

  private release(): void {
    const client = this.client;
    this.client = undefined;
    // Destroyed rather than reused: the connection is still LISTENing.
    void client?.then(
      (connection) => {
        connection.removeAllListeners('notification');
        connection.removeAllListeners('error');
        connection.on('error', () => undefined);
        connection.release(true);
      },
      () => undefined,
    );
  }
}
