// The HTTP clients of bench/server-load.ts, in a process of their own so the
// server's process does only the server's work. Reads one JSON job from
// stdin: { url, token, clients, answers: [sessionId, body][] }; sends each
// answer as a POST with Accept: text/event-stream, at most `clients` at a
// time, reads each stream to its end (eventsource-parser) and writes one
// JSON line: { latencies (ms, POST to first event), elapsed (ms), ended,
// cpu (ms of this process's CPU while answering) }.
//
//   node --import tsx bench/server-load-client.ts < job.json
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { createParser } from 'eventsource-parser';

type Job = { url: string; token: string; clients: number; answers: [string, unknown][] };

const job = JSON.parse(await text(process.stdin)) as Job;
const latencies: number[] = [];
let ended = 0;

async function answer([id, body]: [string, unknown]): Promise<void> {
  const sent = performance.now();
  const response = await fetch(`${job.url}/v1/sessions/${id}/replies`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${job.token}`,
      accept: 'text/event-stream',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let first = true;
  let last = '';
  const parser = createParser({
    onEvent: (event) => {
      if (first) latencies.push(performance.now() - sent);
      first = false;
      last = event.event ?? '';
    },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const bytes: unknown = chunk.value;
    if (bytes instanceof Uint8Array) parser.feed(decoder.decode(bytes, { stream: true }));
  }
  if (last === 'REPLY_END') ended += 1;
}

const started = performance.now();
const cpu = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: job.clients }, async () => {
    for (let index = next++; index < job.answers.length; index = next++) {
      await answer(job.answers[index]!);
    }
  }),
);
const used = process.cpuUsage(cpu);
const elapsed = performance.now() - started;
const cpuMs = (used.user + used.system) / 1000;
process.stdout.write(`${JSON.stringify({ latencies, elapsed, ended, cpu: cpuMs })}\n`);
