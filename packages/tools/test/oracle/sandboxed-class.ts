import path from 'node:path';
import type { SandboxPolicy } from '../../src/bash/sandbox/policy-types.js';
import { stringArgument, type SyscallEvent, type Trace } from './strace-trace.js';
import { isWriteCall, type Violation } from './write-class.js';

/**
 * The oracle's judgement of a run inside the Bash tool's sandbox (ADR
 * tools-0007): what matters is not what the command tried but what took
 * effect outside the policy. From the moment the sandbox started bash,
 * every write call that succeeded must have landed in a private area of
 * the sandbox (its own `/tmp` or `TMPDIR`, where nothing of the host is
 * bound), and no connection may have succeeded. Failed calls (EROFS,
 * ENETUNREACH) are the sandbox at work, and programs outside the proven
 * list are no effect by themselves.
 */
export function sandboxViolations(trace: Trace, policy: SandboxPolicy): Violation[] {
  const found: Violation[] = trace.unreadable.map((line) => ({ kind: 'unreadable', detail: line }));
  const start = trace.events.findIndex(
    (event) =>
      event.name === 'execve' &&
      event.result === '0' &&
      path.posix.basename(stringArgument(event.args[0]) ?? '') === 'bash',
  );
  if (start < 0) return [...found, { kind: 'unreadable', detail: 'the sandbox never ran bash' }];
  for (const event of trace.events.slice(start)) {
    if (event.result === '-1') continue;
    if (event.name === 'connect' && /sa_family=AF_(INET|INET6)\b/.test(event.args[1] ?? '')) {
      found.push({ kind: 'network', detail: event.line });
    } else if (isWriteCall(event) && !writesPrivately(event, policy)) {
      found.push({ kind: 'write', detail: event.line });
    }
  }
  return found;
}

/** Whether every path the call names or writes through is private to the sandbox. */
function writesPrivately(event: SyscallEvent, policy: SandboxPolicy): boolean {
  // Opened as a pipe (the output), or a device: `/dev` is the sandbox's own.
  if (/^(pipe:\[\d+\]|\/dev\/)/.test(event.resultPath ?? '')) return true;
  const places = [
    ...event.args.map((arg) => stringArgument(arg) ?? /^-?\d+<([^<>]*)>/.exec(arg)?.[1]),
    event.resultPath?.replace(/<[^<>]*>$/, ''),
  ].filter((place): place is string => place !== undefined && place.startsWith('/'));
  return places.length > 0 && places.every((place) => isPrivate(place, policy));
}

function isPrivate(place: string, policy: SandboxPolicy): boolean {
  const inside = (directory: string): boolean =>
    place === directory || place.startsWith(`${directory}/`);
  if (inside('/dev')) return true;
  const bound = [...policy.visible, ...policy.writable].some(inside);
  if (policy.tmpdir !== undefined && inside(policy.tmpdir)) return true;
  return policy.privateTmp && inside('/tmp') && !bound;
}
