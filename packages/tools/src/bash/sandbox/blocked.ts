import { displayPath } from '../../shared/secret-paths.js';

/** Where a write failed on the read-only file system, in the words of shells, coreutils, Node and Python. */
const READ_ONLY_PATTERNS = [
  /([^\s'"‘’`:]+)['"‘’`]?: Read-only file system/g,
  /EROFS: read-only file system, \w+ '([^']+)'/g,
  /Read-only file system: '([^']+)'/g,
];
const READ_ONLY_ANY = /Read-only file system|EROFS/;

/** What programs print when there is no network (own network namespace, loopback only). */
const NETWORK_PATTERNS = [
  /Network is unreachable/,
  /Could not resolve host/,
  /Temporary failure in name resolution/,
  /Name or service not known/,
  /getaddrinfo (ENOTFOUND|EAI_AGAIN)/,
  /Connection refused/,
  /No address associated with hostname/,
];

/** Output kept between chunks so a message split across two is still seen. */
const CARRY_CHARS = 512;
const MAX_BLOCKED = 5;

/**
 * Watches a sandboxed command's output for what the sandbox stopped:
 * writes that failed on the read-only file system and, when the command had
 * no network, failed connections and name lookups. The output is the only
 * witness that costs nothing; it may miss a failure a program does not
 * print, and it may name one the program would have hit bare as well.
 */
export class BlockedWatcher {
  private carry = '';
  private readonly writes = new Set<string>();
  private unnamedWrite = false;
  private network = false;

  constructor(
    private readonly home: string,
    private readonly networkBlocked: boolean,
  ) {}

  /** Looks at the next piece of output. */
  push(text: string): void {
    const window = this.carry + text;
    for (const pattern of READ_ONLY_PATTERNS) {
      for (const match of window.matchAll(pattern)) {
        const place = match[1];
        if (place !== undefined && place !== '') this.writes.add(place);
      }
    }
    if (READ_ONLY_ANY.test(window)) this.unnamedWrite = true;
    if (this.networkBlocked && NETWORK_PATTERNS.some((pattern) => pattern.test(window))) {
      this.network = true;
    }
    this.carry = window.slice(-CARRY_CHARS);
  }

  /** What was blocked, in words (`write to ~/.bashrc`, `network connection`); empty when nothing was seen. */
  blocked(): string[] {
    const writes = [...this.writes]
      .slice(0, MAX_BLOCKED)
      .map((place) => `write to ${displayPath(place, this.home)}`);
    if (writes.length === 0 && this.unnamedWrite) writes.push('a write outside what it may change');
    return [...writes, ...(this.network ? ['network connection (no network in the sandbox)'] : [])];
  }
}
