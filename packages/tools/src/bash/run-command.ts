import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { ToolChunk } from '@parley/core';
import { OutputLimit } from './output-limit.js';

/** How to run one command. */
export type RunOptions = {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  headChars: number;
  tailChars: number;
  /** Time between SIGTERM and SIGKILL when stopping the process group. */
  killGraceMs: number;
  /**
   * Runs the shell through another program (a sandbox): given the shell's
   * argv, the program to spawn, and the descriptors it gets as fd 3, 4, ….
   */
  wrap?: (argv: string[]) => { file: string; args: string[]; inherit?: number[] };
};

/** How the command ended, as put in the result metadata. */
export type RunMetadata = {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  outputChars: number;
};

type Event =
  | { type: 'data'; text: string }
  | { type: 'exit'; code: number | null; signal: string | null }
  | { type: 'error'; error: Error };

/**
 * Runs `command` with bash in its own process group and streams its output
 * as text chunks, stdout and stderr merged in the order they were written (both
 * go to one pipe). Ends with a `tool_end` chunk carrying the exit code. On
 * timeout or abort the whole group is stopped (SIGTERM, then SIGKILL), so
 * children do not outlive the call; the same happens if the consumer stops reading.
 */
export async function* runCommand(options: RunOptions): AsyncGenerator<ToolChunk> {
  if (options.signal.aborted) {
    const metadata: RunMetadata = {
      exitCode: null,
      signal: null,
      timedOut: false,
      aborted: true,
      truncated: false,
      outputChars: 0,
    };
    yield { type: 'text', text: endNote(metadata, options.timeoutMs) };
    yield { type: 'tool_end', state: 'error', metadata };
    return;
  }
  // sh sends its own stderr to stdout, then replaces itself with bash -c "$1":
  // one pipe for both streams keeps their order, and the command text stays an argument.
  const shell = ['/bin/sh', '-c', 'exec 2>&1; exec bash -c "$1"', 'parley-bash', options.command];
  const {
    file,
    args,
    inherit = [],
  } = options.wrap?.(shell) ?? { file: '/bin/sh', args: shell.slice(1) };
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    // The shell sends its stderr to stdout; what still comes on stderr is
    // from before it (sh itself, or a sandbox program that could not start).
    stdio: ['ignore', 'pipe', 'pipe', ...inherit],
  });
  const events: Event[] = [];
  let wake: (() => void) | undefined;
  const emit = (event: Event): void => {
    events.push(event);
    wake?.();
  };
  const decoder = new StringDecoder('utf8');
  child.stdout?.on('data', (data: Buffer) => emit({ type: 'data', text: decoder.write(data) }));
  const errors = new StringDecoder('utf8');
  child.stderr?.on('data', (data: Buffer) => emit({ type: 'data', text: errors.write(data) }));
  child.on('error', (error) => emit({ type: 'error', error }));
  child.on('close', (code, signal) => emit({ type: 'exit', code, signal }));

  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    signalGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => signalGroup(child.pid, 'SIGKILL'), options.killGraceMs).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  const limit = new OutputLimit(options.headChars, options.tailChars);
  let exit: { code: number | null; signal: string | null } | undefined;
  try {
    while (exit === undefined) {
      const event = events.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      if (event.type === 'error') throw event.error;
      if (event.type === 'exit') {
        exit = event;
        break;
      }
      const shown = limit.push(event.text);
      if (shown !== '') yield { type: 'text', text: shown };
    }
    const rest = limit.push(decoder.end()) + limit.finish();
    const metadata: RunMetadata = {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut,
      aborted,
      truncated: limit.truncated,
      outputChars: limit.total,
    };
    const note = endNote(metadata, options.timeoutMs);
    const closing = rest + note;
    if (closing !== '') yield { type: 'text', text: closing };
    else if (limit.total === 0) yield { type: 'text', text: '(no output)' };
    const success = exit.code === 0 && !timedOut && !aborted;
    yield { type: 'tool_end', state: success ? 'success' : 'error', metadata };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    if (exit === undefined) stop();
    if (killTimer !== undefined && exit !== undefined) clearTimeout(killTimer);
  }
}

function endNote(metadata: RunMetadata, timeoutMs: number): string {
  const separator = metadata.outputChars > 0 ? '\n' : '';
  if (metadata.timedOut)
    return `${separator}[Command timed out after ${timeoutMs} ms and was stopped]`;
  if (metadata.aborted) return `${separator}[Command was interrupted and stopped]`;
  if (metadata.exitCode !== null && metadata.exitCode !== 0)
    return `${separator}[Exit code: ${metadata.exitCode}]`;
  if (metadata.signal !== null) return `${separator}[Killed by ${metadata.signal}]`;
  return '';
}

/** Sends a signal to the whole process group (negative pid); a group already gone is fine. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has exited already.
  }
}
