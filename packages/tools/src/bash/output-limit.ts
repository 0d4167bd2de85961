/**
 * Keeps a command's output within a budget while it streams: the first
 * `headChars` pass through as they come; after that only the last
 * `tailChars` are kept, and at the end a note says how much was cut before
 * the tail is shown. So the start (what ran) and the end (how it ended,
 * errors) both reach the model.
 */
export class OutputLimit {
  private headLeft: number;
  private tail: string[] = [];
  private tailLength = 0;
  private cut = 0;
  private cutLines = 0;
  /** Characters seen in total. */
  total = 0;

  constructor(
    headChars: number,
    private readonly tailChars: number,
  ) {
    this.headLeft = headChars;
  }

  /** Takes a piece of output; returns what may be shown now (possibly empty). */
  push(text: string): string {
    this.total += text.length;
    if (this.headLeft >= text.length) {
      this.headLeft -= text.length;
      return text;
    }
    const shown = text.slice(0, this.headLeft);
    this.keep(text.slice(this.headLeft));
    this.headLeft = 0;
    return shown;
  }

  /** Whether anything was cut. */
  get truncated(): boolean {
    return this.cut > 0;
  }

  /** What remains to show: the truncation note and the tail (empty when nothing was held back). */
  finish(): string {
    const tail = this.tail.join('');
    if (this.cut === 0) return tail;
    const lines = this.cutLines === 1 ? '1 line' : `${this.cutLines} lines`;
    return `\n\n[... output truncated: ${this.cut} characters (${lines}) cut ...]\n\n${tail}`;
  }

  private keep(text: string): void {
    this.tail.push(text);
    this.tailLength += text.length;
    while (this.tailLength > this.tailChars) {
      const first = this.tail[0] ?? '';
      const excess = this.tailLength - this.tailChars;
      const dropped = excess >= first.length ? first : first.slice(0, excess);
      if (dropped === first) this.tail.shift();
      else this.tail[0] = first.slice(excess);
      this.tailLength -= dropped.length;
      this.cut += dropped.length;
      this.cutLines += countNewlines(dropped);
    }
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
