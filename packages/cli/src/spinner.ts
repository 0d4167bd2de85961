import type { Colors } from './theme.js';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Where a spinner draws: a writable terminal. */
export type SpinnerOutput = { write(text: string): unknown };

/**
 * A one-line spinner drawn in place with a carriage return. Disabled (for
 * pipes and tests) it draws nothing, so output stays clean text.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private text = '';

  constructor(
    private readonly output: SpinnerOutput,
    private readonly colors: Colors,
    private readonly enabled: boolean,
    private readonly intervalMs = 80,
  ) {}

  /** Whether it is on screen now. */
  get spinning(): boolean {
    return this.timer !== undefined;
  }

  /** Shows the spinner with `text`, or changes the text of one already shown. */
  start(text: string): void {
    this.text = text;
    if (!this.enabled) return;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.draw(), this.intervalMs);
      this.timer.unref();
    }
    this.draw();
  }

  /** Removes the spinner line; the cursor is back at the start of that line. */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.output.write('\r\x1b[2K');
  }

  private draw(): void {
    const glyph = frames[this.frame % frames.length] ?? '';
    this.frame += 1;
    this.output.write(`\r\x1b[2K${this.colors.cyan(glyph)} ${this.colors.dim(this.text)}`);
  }
}
