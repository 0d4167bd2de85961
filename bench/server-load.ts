// The HTTP service under load, against the same round trips made in-process.
//
// Throughput: SESSIONS (default 1,000) sessions are parked (the workload of
// bench/park-resume.ts: write_file needs approval), then answered by CLIENTS
// (default 64) concurrent clients. HTTP: a real server from createServer
// listening on 127.0.0.1, API-key authentication, each answer a POST with
// Accept: text/event-stream read to its end with eventsource-parser; the
// time measured is from the POST until its first SSE event is parsed. The
// clients run in a process of their own (bench/server-load-client.ts), as
// real clients would; INLINE_CLIENTS=1 runs them in this process instead,
// so that their work is counted against HTTP too. CLIENT=fetch has the
// client process use Node's fetch and WHATWG streams instead of undici's
// `request` (the default): same requests and parser, about twice the CPU.
// Baseline: the same answers through Sessions.replyStream on the same kind
// of store, in this process, from the call until its first event. Both run
// ROUNDS times (default 2), alternating, after an untimed warm-up of both
// (WARMUP sessions, default 300); the target is HTTP throughput ≥
// 50% of in-process. SYNC=NORMAL runs both without a sync per commit.
// A third side, the framework floor (bench/server-load-floor.ts), has the
// same clients' process send as many answers to a bare hono server that
// streams the frames of one real answer: what any server on these
// libraries spends per answer, so that the HTTP side's time beyond the
// in-process side splits into the framework's and Parley's own.
// Each side also prints the CPU time per answer of this process (and over
// HTTP of the clients' process), steadier than throughput on a busy machine,
// and the time its event loop was busy per answer (CPU and blocking waits)
// and the bytes it wrote per answer (Linux: WAL frames, checkpoints, sockets).
//
// Memory, on a server of its own: RSS (after a full GC) per 1,000 idle SSE
// clients (IDLE, default 1,000, held open by a child process, so only the
// server's side is counted in this process) and per 10,000 parked sessions
// (PARKED, default 10,000, parked over HTTP).
//
// 404s: PROBES (default 2,000) reads of a session id that does not exist,
// interleaved with reads of another owner's session; medians and ratio.
//
// PROFILE=<file>: CPU profiles of this process during the last round's
// answers, in-process and over HTTP (<file>-in-process.cpuprofile and
// <file>-http.cpuprofile, for Chrome DevTools), summarized by area at the end.
//
// The packages come from their dist/ (run `npm run build` first), or from
// source with `npx tsx --conditions=@parley/source bench/server-load.ts`.
//
//   npx tsx bench/server-load.ts              (SQLite)
//   npx tsx bench/server-load.ts postgres     (PARLEY_PG_URL)
//   PROFILE=/tmp/server.cpuprofile npx tsx bench/server-load.ts
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createParser } from 'eventsource-parser';
import { apiKeyAuth, createApiKey, createServer } from '@parley/server';
import type { ParleyServer } from '@parley/server';
import type { AgentEvent } from '@parley/core';
import { printProfileSummary } from './cpu-profile-summary.js';
import { backends, removeBackendFiles } from './server-load-backends.js';
import { floorServer, framesOf } from './server-load-floor.js';
import type { Backend, BackendMaker } from './server-load-backends.js';
import {
  bytesWritten,
  model,
  ms,
  park,
  quantile,
  ratio,
  sessionsOn,
  toolkit,
} from './park-resume-workload.js';

const SESSIONS = Number(process.env.SESSIONS ?? 1000);
const CLIENTS = Number(process.env.CLIENTS ?? 64);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const WARMUP = Number(process.env.WARMUP ?? 300);
const IDLE = Number(process.env.IDLE ?? 1000);
const PARKED = Number(process.env.PARKED ?? 10_000);
const PROBES = Number(process.env.PROBES ?? 2000);
const PROFILE = process.env.PROFILE;
const INLINE_CLIENTS = process.env.INLINE_CLIENTS === '1';
const CLIENT = process.env.CLIENT === 'fetch' ? 'fetch' : 'undici';
const BACKEND = process.argv[2] ?? 'sqlite';

setFlagsFromString('--expose-gc');
const gcFunction: unknown = runInNewContext('gc');
const isCallable = (value: unknown): value is () => void => typeof value === 'function';

/** RSS and heap after full collections, in bytes. */
async function settledMemory(): Promise<{ rss: number; heap: number }> {
  for (let pass = 0; pass < 3; pass++) {
    if (isCallable(gcFunction)) gcFunction();
    await sleep(50);
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

/** Runs `work` on each item, at most `clients` at a time. */
async function inPool<T>(items: readonly T[], clients: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = next++; index < items.length; index = next++) await work(items[index]!);
    }),
  );
}

type Frame = { event: string; data: string };

/** Reads an SSE response to its end; `onFirst` is called when the first event is parsed. */
async function readEvents(response: Response, onFirst: () => void = () => undefined) {
  if (response.status !== 200) {
    throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  }
  const frames: Frame[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (frames.length === 0) onFirst();
      frames.push({ event: event.event ?? 'message', data: event.data });
    },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const bytes: unknown = chunk.value;
    if (bytes instanceof Uint8Array) parser.feed(decoder.decode(bytes, { stream: true }));
  }
  return frames;
}

type Profile = Parameters<typeof printProfileSummary>[0];

/** The CPU profiles taken, by side: written to PROFILE with the side's name, summarized at the end. */
const profiles = new Map<string, Profile>();

/** Starts the CPU profiler when `on`; the function it gives stops it and keeps the profile as `side`. */
async function profileAs(on: boolean, side: string): Promise<() => Promise<void>> {
  if (!on || PROFILE === undefined) return async () => undefined;
  const profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
  return async () => {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    writeFileSync(
      PROFILE.replace(/(\.cpuprofile)?$/, `-${side}.cpuprofile`),
      JSON.stringify(profile),
    );
    profiles.set(side, profile);
  };
}

/**
 * One side's numbers: answers per second, the first-event latencies, and
 * the CPU time (ms, user and system) per answer of this process and, over
 * HTTP, of the clients' process: steadier than throughput on a busy machine;
 * `busy`, the time per answer this process's event loop was not idle (its
 * CPU, and the waits that block it, such as a sync inside a commit): what
 * bounds the answers one process can serve.
 */
type Outcome = {
  perSecond: number;
  p50: number;
  p99: number;
  cpu: number;
  busy: number;
  /** KB this process handed to write(2) per answer: WAL frames, checkpoints, sockets. */
  written: number;
  clientCpu?: number;
};

/** CPU milliseconds (user and system) this process has used since `since`. */
const cpuSince = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const outcomeOf = (
  latencies: number[],
  elapsed: number,
  cpu: number,
  loop: EventLoopUtilization,
  written: number,
): Outcome => ({
  cpu: cpu / latencies.length,
  busy: loop.active / latencies.length,
  written: written / 1024 / latencies.length,
  perSecond: (latencies.length * 1000) / elapsed,
  p50: quantile(latencies, 0.5),
  p99: quantile(latencies, 0.99),
});

/** The baseline: SESSIONS parked and answered through Sessions, in this process. */
async function inProcess(
  backend: Backend,
  round: number,
  profile: boolean,
  count = SESSIONS,
): Promise<Outcome> {
  const sessions = sessionsOn(backend.store);
  const ids = Array.from({ length: count }, (_, index) => `local-${round}-${index}`);
  const approvals = new Map<string, Awaited<ReturnType<typeof park>>>();
  await inPool(ids, CLIENTS, async (id) => {
    approvals.set(id, await park(sessions, id));
  });
  const stopProfile = await profileAs(profile, 'in-process');
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const writtenBefore = bytesWritten();
  const started = performance.now();
  await inPool(ids, CLIENTS, async (id) => {
    const sent = performance.now();
    let first = true;
    let ended = false;
    for await (const event of sessions.replyStream(id, approvals.get(id), { approver: 'bench' })) {
      if (first) latencies.push(performance.now() - sent);
      first = false;
      ended = event.type === 'REPLY_END';
    }
    if (!ended) throw new Error('the in-process reply did not end');
  });
  const elapsed = performance.now() - started;
  const used = cpuSince(cpu);
  const busy = performance.eventLoopUtilization(loop);
  await stopProfile();
  return outcomeOf(latencies, elapsed, used, busy, bytesWritten() - writtenBefore);
}

/** A server on `backend` with two API keys, listening on loopback. */
async function serverOn(backend: Backend) {
  const alice = (await createApiKey(backend.log, 'alice')).token;
  const bob = (await createApiKey(backend.log, 'bob')).token;
  const server: ParleyServer = createServer({
    store: backend.store,
    log: backend.log,
    agent: () => ({ name: 'assistant', model: model(), toolkit }),
    authenticate: apiKeyAuth(backend.log),
    expireEveryMs: 0,
    graceMs: 1000,
  });
  const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
  const call = (
    method: string,
    path: string,
    token: string,
    body?: unknown,
    accept = 'application/json',
  ) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { server, url, alice, bob, call };
}

type Served = Awaited<ReturnType<typeof serverOn>>;

/** Creates a session for alice and parks it over HTTP; gives the answer that confirms its call. */
async function parkOverHttp(served: Served, stream: boolean): Promise<[string, unknown]> {
  const created = await served.call('POST', '/v1/sessions', served.alice);
  const { id } = (await created.json()) as { id: string };
  const body = { input: 'Write the note' };
  if (!stream) {
    const response = await served.call('POST', `/v1/sessions/${id}/replies`, served.alice, body);
    if (response.status !== 200) throw new Error(`park: HTTP ${response.status}`);
    await response.arrayBuffer();
    return [id, undefined];
  }
  const frames = await readEvents(
    await served.call(
      'POST',
      `/v1/sessions/${id}/replies`,
      served.alice,
      body,
      'text/event-stream',
    ),
  );
  const asked = frames.find((frame) => frame.event === 'REQUIRE_USER_CONFIRM');
  if (asked === undefined) throw new Error('the reply did not park');
  const { replyId, toolCalls } = JSON.parse(asked.data) as {
    replyId: string;
    toolCalls: unknown[];
  };
  const answer = {
    input: {
      type: 'USER_CONFIRM_RESULT',
      replyId,
      confirmResults: toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
    },
  };
  return [id, answer];
}

/** The HTTP side: SESSIONS parked over HTTP, then answered by CLIENTS clients, each read to its end. */
async function overHttp(backend: Backend, profile: boolean, count = SESSIONS): Promise<Outcome> {
  const served = await serverOn(backend);
  try {
    const answers = new Map<string, unknown>();
    await inPool(
      Array.from({ length: count }, (_, index) => index),
      CLIENTS,
      async () => {
        const [id, answer] = await parkOverHttp(served, true);
        answers.set(id, answer);
      },
    );
    const stopProfile = await profileAs(profile, 'http');
    const outcome = INLINE_CLIENTS
      ? await timed(async () => {
          const latencies: number[] = [];
          const started = performance.now();
          await inPool([...answers], CLIENTS, async ([id, answer]) => {
            const sent = performance.now();
            const response = await served.call(
              'POST',
              `/v1/sessions/${id}/replies`,
              served.alice,
              answer,
              'text/event-stream',
            );
            const frames = await readEvents(response, () =>
              latencies.push(performance.now() - sent),
            );
            if (frames.at(-1)?.event !== 'REPLY_END') throw new Error('the reply did not end');
          });
          return { latencies, elapsed: performance.now() - started };
        })
      : await byClientProcess(served.url, served.alice, [...answers]);
    await stopProfile();
    return outcome;
  } finally {
    await served.server.close();
  }
}

/** `answer`'s outcome, with this process's CPU, event loop and writes measured around it. */
async function timed(
  answer: () => Promise<{ latencies: number[]; elapsed: number; clientCpu?: number }>,
): Promise<Outcome> {
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const writtenBefore = bytesWritten();
  const { latencies, elapsed, clientCpu } = await answer();
  const used = cpuSince(cpu);
  const busy = performance.eventLoopUtilization(loop);
  return {
    ...outcomeOf(latencies, elapsed, used, busy, bytesWritten() - writtenBefore),
    ...(clientCpu === undefined ? {} : { clientCpu }),
  };
}

/** `answers` sent to the server at `url` by the clients' process, each read to its `REPLY_END`. */
function byClientProcess(url: string, token: string, answers: [string, unknown][]) {
  return timed(async () => {
    const job = { url, token, clients: CLIENTS, client: CLIENT, answers };
    const done = await clientProcess(job);
    if (done.ended !== answers.length) throw new Error(`${done.ended} replies ended, not all`);
    return { latencies: done.latencies, elapsed: done.elapsed, clientCpu: done.cpu / done.ended };
  });
}

/**
 * The framework floor (bench/server-load-floor.ts): the frames of one real
 * answer on `backend`, streamed by a bare hono server to as many answers
 * as the HTTP side makes, from the same clients' process.
 */
async function overFloor(backend: Backend, count = SESSIONS): Promise<Outcome> {
  const sessions = sessionsOn(backend.store);
  const approval = await park(sessions, 'floor');
  const events: AgentEvent[] = [];
  for await (const event of sessions.replyStream('floor', approval, { approver: 'bench' })) {
    events.push(event);
  }
  const floor = await floorServer(framesOf(events));
  try {
    const body = { input: approval };
    const answers = Array.from({ length: count }, (_, index): [string, unknown] => [
      `floor-${index}`,
      body,
    ]);
    return await byClientProcess(floor.url, 'floor', answers);
  } finally {
    await floor.close();
  }
}

/** Runs bench/server-load-client.ts on `job` in a process of its own; gives what it measured. */
async function clientProcess(job: unknown): Promise<{
  latencies: number[];
  elapsed: number;
  ended: number;
  cpu: number;
}> {
  const script = fileURLToPath(new URL('./server-load-client.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(job));
  const output = await text(child.stdout);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the client process exited with ${String(code)}`);
  return JSON.parse(output) as { latencies: number[]; elapsed: number; ended: number; cpu: number };
}

/** Idle SSE clients held open by a child process, until `release` is called. */
async function idleClients(served: Served, ids: string[]): Promise<() => Promise<void>> {
  const script = `
    const ids = process.env.IDS.split(',');
    const opened = await Promise.all(ids.map((id) =>
      fetch(process.env.URL + '/v1/sessions/' + id + '/events', {
        headers: { authorization: 'Bearer ' + process.env.TOKEN } })));
    console.log(opened.every((response) => response.status === 200) ? 'ready' : 'refused');
    process.stdin.on('data', () => process.exit(0));
    setInterval(() => undefined, 1 << 30);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, IDS: ids.join(','), URL: served.url, TOKEN: served.alice },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const said = await new Promise<string>((resolve) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  if (said !== 'ready') throw new Error(`idle clients: ${said}`);
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.write('stop\n');
    await exited;
  };
}

/** The number a Prometheus text line gives `name`. */
async function gauge(served: Served, name: string): Promise<number> {
  const text = await (await fetch(`${served.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 600 && !(await check()); tries++) await sleep(50);
}

/** Memory per idle SSE client and per parked session, and the 404 timing. */
async function memoryAndProbes(maker: BackendMaker): Promise<void> {
  const backend = await maker('memory');
  const served = await serverOn(backend);
  try {
    const ids: string[] = [];
    await inPool(
      Array.from({ length: IDLE }, (_, index) => index),
      CLIENTS,
      async () => {
        const created = await served.call('POST', '/v1/sessions', served.alice);
        ids.push(((await created.json()) as { id: string }).id);
      },
    );
    const beforeClients = await settledMemory();
    const release = await idleClients(served, ids);
    await until(async () => (await gauge(served, 'parley_sse_clients')) === IDLE);
    const withClients = await settledMemory();
    await release();
    await until(async () => (await gauge(served, 'parley_sse_clients')) === 0);
    const left = await gauge(served, 'parley_sse_clients');
    const perClients = (1000 / IDLE) * (withClients.rss - beforeClients.rss);
    const heapClients = (1000 / IDLE) * (withClients.heap - beforeClients.heap);

    const beforeParked = await settledMemory();
    await inPool(
      Array.from({ length: PARKED }, (_, index) => index),
      CLIENTS,
      async () => {
        await parkOverHttp(served, false);
      },
    );
    const parked = await gauge(served, 'parley_parked_replies');
    const withParked = await settledMemory();
    const perParked = (10_000 / PARKED) * (withParked.rss - beforeParked.rss);
    const heapParked = (10_000 / PARKED) * (withParked.heap - beforeParked.heap);

    const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;
    console.log(`\nmemory (this process: the server; after a full GC)`);
    console.log(
      `  per 1,000 idle SSE clients: RSS +${mb(perClients)}, heap +${mb(heapClients)}` +
        ` (${IDLE} measured; ${left} left open after the clients went away)`,
    );
    console.log(
      `  per 10,000 parked sessions: RSS +${mb(perParked)}, heap +${mb(heapParked)}` +
        ` (${PARKED} parked over HTTP; the gauge says ${parked})`,
    );

    const own = ids[0]!;
    const missing: number[] = [];
    const foreign: number[] = [];
    for (let probe = 0; probe < PROBES; probe++) {
      for (const [times, path, token] of [
        [missing, `/v1/sessions/${randomUUID()}`, served.alice],
        [foreign, `/v1/sessions/${own}`, served.bob],
      ] as const) {
        const sent = performance.now();
        const response = await served.call('GET', path, token);
        await response.arrayBuffer();
        times.push(performance.now() - sent);
        if (response.status !== 404) throw new Error(`expected 404, got ${response.status}`);
      }
    }
    const [m50, f50] = [quantile(missing, 0.5), quantile(foreign, 0.5)];
    console.log(`\n404 for a session the caller may not see (${PROBES} each, interleaved)`);
    console.log(`  no such id:          p50 ${ms(m50)}  p99 ${ms(quantile(missing, 0.99))}`);
    console.log(`  another owner's id:  p50 ${ms(f50)}  p99 ${ms(quantile(foreign, 0.99))}`);
    console.log(`  another owner's / no such id (p50): ${ratio(f50, m50)}`);
  } finally {
    await served.server.close();
    await backend.close();
  }
}

const maker = backends.get(BACKEND);
if (maker === undefined)
  throw new Error(`No backend "${BACKEND}": ${[...backends.keys()].join(', ')}`);
try {
  const label = (await maker('probe').then(async (probe) => (await probe.close(), probe))).label;
  console.log(
    `server-load: ${SESSIONS} sessions parked, answered by ${CLIENTS} concurrent clients` +
      `${INLINE_CLIENTS ? ' (in this process)' : ` (${CLIENT})`}; ${label}`,
  );
  console.log(
    `  ${'round'.padEnd(7)}${'side'.padEnd(20)}answers/s   p50 first event           p99` +
      `   CPU per answer   loop busy per answer   written per answer`,
  );
  if (WARMUP > 0) {
    // Untimed: the first side timed would otherwise also pay for compiling the answer's path.
    const local = await maker('warmup-local');
    await inProcess(local, 0, false, WARMUP).finally(() => local.close());
    const remote = await maker('warmup-http');
    await overHttp(remote, false, WARMUP).finally(() => remote.close());
    if (!INLINE_CLIENTS) {
      const framed = await maker('warmup-floor');
      await overFloor(framed, WARMUP).finally(() => framed.close());
    }
  }
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const local = await maker(`local-${round}`);
    const last = round === ROUNDS;
    const baseline = await inProcess(local, round, last).finally(() => local.close());
    const remote = await maker(`http-${round}`);
    const http = await overHttp(remote, last).finally(() => remote.close());
    let floor: Outcome | undefined;
    if (!INLINE_CLIENTS) {
      const framed = await maker(`floor-${round}`);
      floor = await overFloor(framed).finally(() => framed.close());
    }
    const sides: [string, Outcome][] = [
      ['in-process', baseline],
      ['HTTP + SSE', http],
    ];
    if (floor !== undefined) sides.push(['HTTP floor (hono)', floor]);
    for (const [side, outcome] of sides) {
      const clients = outcome.clientCpu === undefined ? '' : ` (clients ${ms(outcome.clientCpu)})`;
      console.log(
        `  ${String(round).padEnd(7)}${side.padEnd(20)}${outcome.perSecond.toFixed(0).padStart(9)}` +
          `   ${ms(outcome.p50).padStart(15)}   ${ms(outcome.p99).padStart(11)}` +
          `   ${ms(outcome.cpu)}   ${ms(outcome.busy)}   ${outcome.written.toFixed(1)} KB${clients}`,
      );
    }
    ratios.push(http.perSecond / baseline.perSecond);
    console.log(
      `  ${''.padEnd(7)}HTTP / in-process throughput ${ratio(http.perSecond, baseline.perSecond)}` +
        `, p50 ${ratio(http.p50, baseline.p50)}, loop busy ${ratio(http.busy, baseline.busy)}`,
    );
    if (floor !== undefined) {
      const beyond = http.busy - baseline.busy;
      console.log(
        `  ${''.padEnd(7)}loop busy over HTTP beyond in-process ${ms(beyond)} per answer: ` +
          `the framework floor ${ms(floor.busy)}, Parley's server ${ms(beyond - floor.busy)}`,
      );
    }
  }
  const mean = ratios.reduce((sum, value) => sum + value, 0) / ratios.length;
  console.log(
    `  HTTP throughput / in-process, mean of ${ROUNDS}: ${mean.toFixed(2)} (target ≥ 0.50: ` +
      `${mean >= 0.5 ? 'met' : 'not met'})`,
  );
  await memoryAndProbes(maker);
  for (const [side, profile] of profiles) {
    console.log(`\nCPU profile of the last round's answers, ${side} (this process)`);
    printProfileSummary(profile);
  }
} finally {
  removeBackendFiles();
}
