import { ParleyError } from '@parley/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SessionLog } from '../log/session-log.js';

/**
 * The Prometheus metrics of one server, on a registry of its own (never
 * prom-client's global one, so two servers in a process do not collide):
 * `parley_parked_replies` (gauge, read from the approvals index at each
 * scrape), `parley_answers_total{outcome}` (answers to parked replies:
 * `accepted`, or the error code that refused them),
 * `parley_reply_round_trip_seconds{kind}` (from a reply's POST until its
 * first event is written to the client's event stream, or for a JSON
 * request, is out: what a person waiting on the answer feels; `kind` is
 * `message` or `answer`) and
 * `parley_sse_clients` (open event streams),
 * `parley_streams_refused_total{limit}` (streams refused with 429 over the
 * per-principal or the total limit: `principal`, `total`) and
 * `parley_streams_closed_total{reason}` (streams the server closed before
 * their end: `unauthenticated` when their credentials stopped being valid).
 */
export type ServerMetrics = {
  registry: Registry;
  answers: Counter<'outcome'>;
  roundTrip: Histogram<'kind'>;
  sseClients: Gauge;
  streamsRefused: Counter<'limit'>;
  streamsClosed: Counter<'reason'>;
};

/** Builds a server's metrics; the parked-replies gauge counts the distinct replies `log` lists as waiting. */
export function createMetrics(log: SessionLog): ServerMetrics {
  const registry = new Registry();
  new Gauge({
    name: 'parley_parked_replies',
    help: 'Parked replies waiting for an answer.',
    registers: [registry],
    async collect() {
      const waiting = await log.listWaiting(null);
      this.set(
        new Set(waiting.map((approval) => `${approval.sessionId}\n${approval.replyId}`)).size,
      );
    },
  });
  return {
    registry,
    answers: new Counter({
      name: 'parley_answers_total',
      help: 'Answers to parked replies, by outcome: accepted, or the code that refused them.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    roundTrip: new Histogram({
      name: 'parley_reply_round_trip_seconds',
      help: "From a reply's POST until its first event is sent.",
      labelNames: ['kind'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    sseClients: new Gauge({
      name: 'parley_sse_clients',
      help: 'Open server-sent event streams.',
      registers: [registry],
    }),
    streamsRefused: new Counter({
      name: 'parley_streams_refused_total',
      help: 'Event streams refused over a limit: principal, or total.',
      labelNames: ['limit'],
      registers: [registry],
    }),
    streamsClosed: new Counter({
      name: 'parley_streams_closed_total',
      help: 'Event streams the server closed before their end, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

/** The `outcome` label of a refused answer: its `ParleyError` code, else `error`. */
export function outcomeOf(error: unknown): string {
  return error instanceof ParleyError ? error.code : 'error';
}
