/** What a sed script may do beyond printing. */
export type SedEffect = 'prints' | 'writes' | 'executes' | 'unknown';

const SIMPLE_COMMANDS = new Set([
  'p',
  'P',
  'd',
  'D',
  'n',
  'N',
  'g',
  'G',
  'h',
  'H',
  'x',
  '=',
  'z',
  'F',
  'l',
  'q',
  'Q',
  'L',
]);
const LABEL_COMMANDS = new Set(['b', 't', 'T', ':']);
const TEXT_COMMANDS = new Set(['a', 'i', 'c', 'r', 'R']);
const SUBSTITUTE_FLAGS = /^[gpiImM0-9]$/;

/**
 * Reads a sed script far enough to know whether it can write files (`w`,
 * `W`, the `w` flag) or run commands (`e`, the `e` flag). Anything it does
 * not recognise is `unknown`, which callers treat like `executes`.
 */
export function sedScriptEffect(script: string): SedEffect {
  const reader = new SedReader(script);
  let effect: SedEffect = 'prints';
  while (!reader.done()) {
    const next = reader.command();
    if (next === 'unknown' || next === 'executes') return next;
    if (next === 'writes') effect = 'writes';
  }
  return effect;
}

/**
 * The files a sed script reads with its `r` and `R` commands (`/x/r
 * footer.txt`): reads the operands do not show. A script that cannot be read
 * gives undefined (whatever it reads is unknown).
 */
export function sedScriptReads(script: string): string[] | undefined {
  const reader = new SedReader(script);
  while (!reader.done()) {
    if (reader.command() === 'unknown') return undefined;
  }
  return reader.reads;
}

class SedReader {
  private at = 0;
  /** The file names of the `r`/`R` commands read so far. */
  readonly reads: string[] = [];
  constructor(private readonly text: string) {}

  done(): boolean {
    while (this.at < this.text.length && /[\s;}]/.test(this.peek())) this.at++;
    if (this.peek() === '#') {
      while (this.at < this.text.length && this.peek() !== '\n') this.at++;
      return this.done();
    }
    return this.at >= this.text.length;
  }

  command(): SedEffect {
    if (!this.address()) return 'unknown';
    this.blanks();
    if (this.peek() === ',') {
      this.at++;
      this.blanks();
      if (!this.address()) return 'unknown';
      this.blanks();
    }
    if (this.peek() === '!') {
      this.at++;
      this.blanks();
    }
    const name = this.text[this.at++] ?? '';
    if (name === '{') return 'prints';
    if (SIMPLE_COMMANDS.has(name)) {
      while (/[0-9 \t]/.test(this.peek())) this.at++;
      return this.endOfCommand() ? 'prints' : 'unknown';
    }
    if (LABEL_COMMANDS.has(name)) return this.label();
    if (name === 'r' || name === 'R') {
      const start = this.at;
      this.restOfLine('prints');
      this.reads.push(this.text.slice(start, this.at).replace(/^[ \t]+/, ''));
      return 'prints';
    }
    if (TEXT_COMMANDS.has(name)) return this.restOfLine('prints');
    if (name === 'w' || name === 'W') return this.restOfLine('writes');
    if (name === 'e') return 'executes';
    if (name === 'y') return this.delimited(2) ? 'prints' : 'unknown';
    if (name === 's') return this.substitute();
    return 'unknown';
  }

  private substitute(): SedEffect {
    const delimiter = this.peek();
    if (!this.delimited(2)) return 'unknown';
    let effect: SedEffect = 'prints';
    for (;;) {
      const flag = this.peek();
      if (flag === 'e') return 'executes';
      if (flag === 'w') return 'writes';
      if (!SUBSTITUTE_FLAGS.test(flag)) break;
      this.at++;
    }
    if (delimiter === '\n' || delimiter === '\\') effect = 'unknown';
    return this.endOfCommand() ? effect : 'unknown';
  }

  /** Skips `count` delimited parts (`/re/`, `/re/repl/`); false when malformed or bracket-ambiguous. */
  private delimited(count: number): boolean {
    const delimiter = this.text[this.at++];
    if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
    for (let part = 0; part < count; part++) {
      let inBracket = false;
      for (;;) {
        const char = this.text[this.at++];
        if (char === undefined) return false;
        if (char === '\\') this.at++;
        else if (char === '[') inBracket = true;
        else if (char === ']') inBracket = false;
        else if (char === delimiter) {
          // GNU and BSD sed disagree on a delimiter inside [..]; refuse to guess.
          if (inBracket) return false;
          break;
        }
      }
    }
    return true;
  }

  private address(): boolean {
    const char = this.peek();
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(this.peek())) this.at++;
      return true;
    }
    if (char === '$') {
      this.at++;
      return true;
    }
    if (char === '+' || char === '~') {
      this.at++;
      while (/[0-9]/.test(this.peek())) this.at++;
      return true;
    }
    if (char === '/' || char === '\\') {
      if (char === '\\') this.at++;
      if (!this.delimited(1)) return false;
      while (/[IM]/.test(this.peek())) this.at++;
      return true;
    }
    return true;
  }

  /** A label ends at `;` or a newline (GNU); reading on from there also covers BSD, where it runs to the line end. */
  private label(): SedEffect {
    while (this.at < this.text.length && this.peek() !== '\n' && this.peek() !== ';') this.at++;
    return 'prints';
  }

  private restOfLine(effect: SedEffect): SedEffect {
    while (this.at < this.text.length && this.peek() !== '\n') {
      if (this.peek() === '\\') this.at++;
      this.at++;
    }
    return effect;
  }

  private endOfCommand(): boolean {
    this.blanks();
    const char = this.peek();
    return char === '' || char === ';' || char === '\n' || char === '}' || char === '#';
  }

  private blanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  private peek(): string {
    return this.text[this.at] ?? '';
  }
}
