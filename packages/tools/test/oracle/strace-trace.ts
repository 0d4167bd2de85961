/**
 * Reads the text `strace -f -qq -yy -e signal=none -o FILE` writes: one
 * system call per line, `PID  name(arg, arg, …) = result`, with calls split
 * over two lines when another process ran in between (`… <unfinished ...>`
 * and `PID  <... name resumed>…`). The oracle judges these calls, so reading
 * them fails closed: a line that is not a complete call is returned as
 * unreadable, never dropped.
 */

/** One system call as strace printed it. */
export type SyscallEvent = {
  pid: number;
  name: string;
  /** Top-level arguments, as printed (strings still quoted, `<path>` fd notes kept). */
  args: string[];
  /** The result: a number, `-1`, or `?` (the call did not return, e.g. a successful execve seen from a dying thread). */
  result: string;
  /** With `-yy`: what a returned fd refers to (`/dev/null<char 1:3>`, `pipe:[123]`). */
  resultPath: string | undefined;
  /** The errno name of a failed call (`ENOENT`), if any. */
  errno: string | undefined;
  /** The whole call on one line, for reports. */
  line: string;
};

/** What a trace holds: the calls read, and lines that could not be read as calls. */
export type Trace = { events: SyscallEvent[]; unreadable: string[] };

const LINE = /^(\d+)\s+(.*)$/;
const UNFINISHED = ' <unfinished ...>';
const RESUMED = /^<\.\.\. ([a-z0-9_]+) resumed>(.*)$/;
const CALL = /^([a-z0-9_]+)\((.*)$/s;

/** Reads a whole trace file's text. */
export function readTrace(text: string): Trace {
  const events: SyscallEvent[] = [];
  const unreadable: string[] = [];
  const pending = new Map<number, string>();
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const match = LINE.exec(raw);
    if (match === null) {
      unreadable.push(raw);
      continue;
    }
    const pid = Number(match[1]);
    let body = match[2] ?? '';
    const resumed = RESUMED.exec(body);
    if (resumed !== null) {
      const start = pending.get(pid);
      pending.delete(pid);
      if (start === undefined || !start.startsWith(`${resumed[1] ?? ''}(`)) {
        unreadable.push(raw);
        continue;
      }
      body = start + (resumed[2] ?? '');
    }
    if (body.endsWith(UNFINISHED)) {
      pending.set(pid, body.slice(0, -UNFINISHED.length));
      continue;
    }
    const event = readCall(pid, body);
    if (event === undefined) unreadable.push(raw);
    else events.push(event);
  }
  for (const [pid, start] of pending) unreadable.push(`${pid}  ${start} <unfinished ...>`);
  return { events, unreadable };
}

/** Reads `name(args) = result …`; undefined when the line is not one whole call. */
export function readCall(pid: number, body: string): SyscallEvent | undefined {
  const call = CALL.exec(body);
  if (call === null) return undefined;
  const name = call[1] ?? '';
  const split = splitArguments(call[2] ?? '');
  if (split === undefined) return undefined;
  const outcome = /^\s*=\s*(-?\d+|\?|0x[0-9a-f]+)(.*)$/s.exec(split.rest);
  if (outcome === null) return undefined;
  const result = outcome[1] ?? '';
  const after = outcome[2] ?? '';
  let resultPath: string | undefined;
  let errno: string | undefined;
  if (after.startsWith('<')) {
    const end = closingAngle(after, 0);
    if (end === -1) return undefined;
    resultPath = after.slice(1, end);
  } else {
    errno = /^\s+(E[A-Z0-9]+)\b/.exec(after)?.[1];
  }
  return { pid, name, args: split.args, result, resultPath, errno, line: `${pid}  ${body}` };
}

/**
 * Splits the text after `name(` into top-level arguments up to the closing
 * parenthesis: strings, brackets, braces, `/* … *\/` comments and `<…>` fd
 * notes are kept whole. Undefined when the parenthesis never closes.
 */
function splitArguments(text: string): { args: string[]; rest: string } | undefined {
  const args: string[] = [];
  let depth = 0;
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      i = closingQuote(text, i);
      if (i === -1) return undefined;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) return undefined;
      i = end + 1;
    } else if (char === '<' && i > 0 && /[0-9A-Z\]]/.test(text[i - 1] ?? '')) {
      i = closingAngle(text, i);
      if (i === -1) return undefined;
    } else if (char === '(' || char === '[' || char === '{') {
      depth++;
    } else if (char === ']' || char === '}') {
      depth--;
    } else if (char === ')') {
      if (depth === 0) {
        const last = text.slice(start, i).trim();
        if (last !== '' || args.length > 0) args.push(last);
        return { args, rest: text.slice(i + 1) };
      }
      depth--;
    } else if (char === ',' && depth === 0) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
    i++;
  }
  return undefined;
}

/** Index of the `"` closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') {
      // strace marks a string cut by -s with `...` right after the quote.
      return text.startsWith('...', i + 1) ? i + 3 : i;
    }
  }
  return -1;
}

/**
 * Index of the `>` closing the fd note opened at `open`, or -1. Notes nest
 * (`</dev/null<char 1:3>>`); strace writes a `>` in a path as `\76`, so the
 * only other `>` is the arrow of a connected socket's note
 * (`<TCP:[127.0.0.1:40000->127.0.0.1:80]>`), always followed by an address.
 */
function closingAngle(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const arrow = text[i - 1] === '-' && /[0-9[]/.test(text[i + 1] ?? '');
    if (text[i] === '<') depth++;
    else if (text[i] === '>' && !arrow) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * The value of a quoted strace string argument (`"a\nb"` → `a` newline `b`,
 * octal and hex escapes decoded as bytes, UTF-8). Undefined when the
 * argument is not a whole quoted string, or was cut short by `-s`.
 */
export function stringArgument(arg: string | undefined): string | undefined {
  if (arg === undefined || !arg.startsWith('"') || !arg.endsWith('"') || arg.length < 2) {
    return undefined;
  }
  const bytes: number[] = [];
  const body = arg.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '\\': 92, '"': 34 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i] ?? '';
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    const known = simple[next];
    if (known !== undefined) {
      bytes.push(known);
      i++;
    } else if (next === 'x') {
      bytes.push(Number.parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (/[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1))?.[0] ?? '0';
      bytes.push(Number.parseInt(octal, 8));
      i += octal.length;
    } else {
      return undefined;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path in an fd note (`AT_FDCWD</tmp/x>` → `/tmp/x`), or undefined. */
export function fdNotePath(arg: string | undefined): string | undefined {
  if (arg === undefined) return undefined;
  const open = arg.indexOf('<');
  if (open === -1 || !arg.endsWith('>')) return undefined;
  const inner = arg.slice(open + 1, -1);
  const nested = inner.indexOf('<');
  return nested === -1 ? inner : inner.slice(0, nested);
}
