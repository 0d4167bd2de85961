import type { Notification, Pool } from 'pg';
import { escapeIdentifier } from 'pg';

/** A session changed: another node (or this one) saved it, and it now has `version`. */
export type SessionChange = { sessionId: string; version: number };

/** A live `subscribe`; `close` stops it and hands its connection back. */
export type SessionSubscription = { close: () => Promise<void> };

/**
 * The NOTIFY payload of a change: `'<sessionId>:<version>'`. The version
 * comes last, so a session id may itself contain colons.
 */
export function formatChangePayload(change: SessionChange): string {
  return `${change.sessionId}:${change.version}`;
}

/**
 * Reads a NOTIFY payload written by `formatChangePayload`; `undefined` for
 * anything else (someone else notifying on the same channel).
 */
export function parseChangePayload(payload: string): SessionChange | undefined {
  const colon = payload.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const digits = payload.slice(colon + 1);
  if (!/^[1-9]\d*$/.test(digits)) return undefined;
  const version = Number(digits);
  if (!Number.isSafeInteger(version)) return undefined;
  return { sessionId: payload.slice(0, colon), version };
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Takes one connection out of `pool` for good and LISTENs on `channel`
 * with it, calling `listener` for every change announced there (in commit
 * order). A listener that throws, and a connection that fails, are reported
 * to `onError`; after a connection failure the subscription is over (the
 * caller subscribes again and reloads what it follows).
 */
export async function listenForChanges(
  pool: Pool,
  channel: string,
  listener: (change: SessionChange) => void,
  onError: (error: Error) => void,
): Promise<SessionSubscription> {
  const client = await pool.connect();
  let open = true;
  const onNotification = (message: Notification): void => {
    if (!open || message.channel !== channel || message.payload === undefined) return;
    const change = parseChangePayload(message.payload);
    if (change === undefined) return;
    try {
      listener(change);
    } catch (error) {
      onError(toError(error));
    }
  };
  const finish = (failure?: Error): void => {
    if (!open) return;
    open = false;
    client.off('notification', onNotification);
    // Destroy rather than reuse: the connection is still LISTENing.
    client.release(failure ?? true);
  };
  const onConnectionError = (error: Error): void => {
    if (!open) return;
    finish(error);
    onError(error);
  };
  client.on('notification', onNotification);
  client.on('error', onConnectionError);
  try {
    await client.query(`LISTEN ${escapeIdentifier(channel)}`);
  } catch (error) {
    finish(toError(error));
    throw error;
  }
  return { close: async () => finish() };
}
