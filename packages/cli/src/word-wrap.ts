/**
 * Wraps streamed text at word boundaries. Text arrives in arbitrary pieces,
 * so a word is held back until the space or newline after it shows where it
 * ends; `end()` lets the last one out. Words longer than a line are broken.
 */
export class WordWrap {
  private column = 0;
  private word = '';
  /** Spaces after the last word: written before the next word, or dropped at a break. */
  private spaces = '';

  constructor(private readonly width: () => number) {}

  /** The text to write for `text`, with line breaks added where words would not fit. */
  push(text: string): string {
    let out = '';
    for (const char of text) {
      if (char === '\n') {
        out += `${this.flush()}\n`;
        this.spaces = '';
        this.column = 0;
      } else if (char === ' ' || char === '\t') {
        out += this.flush();
        this.spaces += char;
      } else {
        this.word += char;
      }
    }
    return out;
  }

  /** Lets out the word held back; call when the text ends. */
  end(): string {
    const out = this.flush();
    this.spaces = '';
    return out;
  }

  /** Whether nothing is on the current line (nor held back). */
  get atLineStart(): boolean {
    return this.column === 0 && this.word === '';
  }

  /** Forgets the position: the next text starts a fresh line. */
  reset(): void {
    this.column = 0;
    this.word = '';
    this.spaces = '';
  }

  private flush(): string {
    if (this.word === '') return '';
    const width = Math.max(10, this.width());
    let chars = [...this.word];
    let spaces = this.spaces;
    this.word = '';
    this.spaces = '';
    let out = '';
    if (this.column > 0 && this.column + spaces.length + chars.length > width) {
      out += '\n';
      this.column = 0;
      spaces = '';
    }
    out += spaces;
    this.column += spaces.length;
    while (this.column + chars.length > width) {
      const room = Math.max(1, width - this.column);
      out += `${chars.slice(0, room).join('')}\n`;
      chars = chars.slice(room);
      this.column = 0;
    }
    out += chars.join('');
    this.column += chars.length;
    return out;
  }
}
