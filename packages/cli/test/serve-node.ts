// A `parley serve` process driven over real HTTP: fetch and a well-kept SSE
// parser (eventsource-parser). Used by the several-nodes test.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { createParser } from 'eventsource-parser';
import { parleyCommand } from './tmux.js';

/** One SSE frame: its `id` (the event's number), `event` (its type) and `data`. */
export type Frame = { id: number; event: string; data: string };

/** A running `parley serve`: its URL and process. */
export type ServeNode = { url: string; process: ChildProcess; output: () => string };

/**
 * Starts `parley serve` with `args` and resolves once it printed its URL.
 * `parley`: the command line that runs it (default: from source).
 */
export function startServeNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  parley: readonly string[] = parleyCommand,
): Promise<ServeNode> {
  const [command = 'node', ...rest] = parley;
  const started = spawn(command, [...rest, 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onOutput = (chunk: Buffer): void => {
      output += chunk.toString();
      const address = /· (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (address !== undefined && output.includes('login token')) {
        resolve({ url: address, process: started, output: () => output });
      }
    };
    started.stdout.on('data', onOutput);
    started.stderr.on('data', onOutput);
    started.once('exit', (code) => reject(new Error(`parley serve exited (${code}): ${output}`)));
  });
}

/** Stops `node` with SIGTERM, if it still runs, and waits for it to exit. */
export async function stopServeNode(node: ServeNode | undefined): Promise<void> {
  const child = node?.process;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** An HS256 JSON Web Token with `claims`, signed with the shared secret `key`. */
export function hs256Jwt(claims: Record<string, unknown>, key: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  const signature = createHmac('sha256', key).update(unsigned).digest('base64url');
  return `${unsigned}.${signature}`;
}

/** A request to `node` as the bearer of `token`, with `body` sent as JSON when given. */
export function call(
  node: ServeNode,
  method: string,
  path: string,
  options: { token: string; body?: unknown; headers?: Record<string, string> },
): Promise<Response> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    ...options.headers,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${node.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

/**
 * Reads SSE frames, handing each to `onFrame`, until `enough` says so (or
 * the stream ends); then lets go of the body.
 */
export async function readFrames(
  response: Response,
  enough: (frame: Frame, all: Frame[]) => boolean,
  onFrame: (frame: Frame) => void = () => undefined,
): Promise<Frame[]> {
  const read: Frame[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      const frame = { id: Number(event.id), event: event.event ?? 'message', data: event.data };
      read.push(frame);
      onFrame(frame);
      done = enough(frame, read);
    },
  });
  const reader = response.body?.getReader();
  if (reader === undefined) return read;
  const decoder = new TextDecoder();
  while (!done) {
    const chunk = await reader.read();
    const value: unknown = chunk.value;
    if (chunk.done || !(value instanceof Uint8Array)) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel();
  return read;
}

/** Whether a frame ends a reply's stream: it parked, or it ended. */
export const settles = (frame: Frame): boolean =>
  frame.event === 'REQUIRE_USER_CONFIRM' ||
  frame.event === 'REQUIRE_EXTERNAL_EXECUTION' ||
  frame.event === 'REPLY_END';
