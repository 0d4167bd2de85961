// The HTTP clients of bench/server-load.ts, in a process of their own so the
// server's process does only the server's work. Reads one JSON job from
// stdin: { url, token, clients, client, answers: [sessionId, body][] }; sends
// each answer as a POST with Accept: text/event-stream, at most `clients` at
// a time, reads each stream to its end (eventsource-parser) and writes one
// JSON line: { latencies (ms, POST to first event), elapsed (ms), ended,
// cpu (ms of this process's CPU while answering) }.
//
// `client`: 'undici' (default) sends with undici's `request` over a pool of
// keep-alive connections and feeds the parser the body's text as it comes;
// 'fetch' uses Node's fetch and reads the body as a WHATWG stream, which
// costs this process about as much CPU per answer as the server spends.
//
//   node --import tsx bench/server-load-client.ts < job.json
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { Pool } from 'undici';

type Job = {
  url: string;
  token: string;
  clients: number;
  client?: 'undici' | 'fetch';
  answers: [string, unknown][];
};

const job = JSON.parse(await text(process.stdin)) as Job;
const latencies: number[] = [];
let ended = 0;

const headers = {
  authorization: `Bearer ${job.token}`,
  accept: 'text/event-stream',
  'content-type': 'application/json',
};

/** A parser of one response's events: records the first one's latency and the last one's name. */
function eventsOf(sent: number) {
  let first = true;
  let last = '';
  const parser = createParser({
    onEvent: (event) => {
      if (first) latencies.push(performance.now() - sent);
      first = false;
      last = event.event ?? '';
    },
  });
  return { feed: (chunk: string) => parser.feed(chunk), last: () => last };
}

async function answerByFetch([id, body]: [string, unknown]): Promise<string> {
  const sent = performance.now();
  const response = await fetch(`${job.url}/v1/sessions/${id}/replies`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const events = eventsOf(sent);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const bytes: unknown = chunk.value;
    if (bytes instanceof Uint8Array) events.feed(decoder.decode(bytes, { stream: true }));
  }
  return events.last();
}

const pool = new Pool(job.url, { connections: job.clients });

async function answerByUndici([id, body]: [string, unknown]): Promise<string> {
  const sent = performance.now();
  const response = await pool.request({
    method: 'POST',
    path: `/v1/sessions/${id}/replies`,
    headers,
    body: JSON.stringify(body),
  });
  if (response.statusCode !== 200) {
    throw new Error(`HTTP ${response.statusCode}: ${await response.body.text()}`);
  }
  const events = eventsOf(sent);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of response.body) events.feed(decoder.write(chunk as Buffer));
  return events.last();
}

const answer = job.client === 'fetch' ? answerByFetch : answerByUndici;
const started = performance.now();
const cpu = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: job.clients }, async () => {
    for (let index = next++; index < job.answers.length; index = next++) {
      if ((await answer(job.answers[index]!)) === 'REPLY_END') ended += 1;
    }
  }),
);
const used = process.cpuUsage(cpu);
const elapsed = performance.now() - started;
await pool.close();
const cpuMs = (used.user + used.system) / 1000;
process.stdout.write(`${JSON.stringify({ latencies, elapsed, ended, cpu: cpuMs })}\n`);
