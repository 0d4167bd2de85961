import type { McpElicitationAnswer } from './elicitation.js';
import type { InFlightCall } from './in-flight-call.js';

/** Default time a held-open elicitation waits for its answer before it is cancelled. */
export const DEFAULT_HELD_TIMEOUT_MS = 30 * 60_000;

type Held = {
  call: InFlightCall;
  answer: (answer: McpElicitationAnswer) => void;
  timer: NodeJS.Timeout;
};

/**
 * The MCP calls whose server holds a request open while the reply is
 * parked for an elicitation, by Parley tool call id. Only this process can
 * answer them: the connection lives here. One left unanswered (the reply
 * was interrupted, expired, or never resumed) is answered `cancel` after
 * `timeoutMs`, and on `cancelAll` (close).
 */
export class HeldCalls {
  private readonly held = new Map<string, Held>();
  private readonly timeoutMs: number;

  constructor(timeoutMs: number = DEFAULT_HELD_TIMEOUT_MS) {
    this.timeoutMs = timeoutMs;
  }

  /** Keeps an open call whose elicitation waits for the person. */
  hold(
    toolCallId: string,
    call: InFlightCall,
    answer: (answer: McpElicitationAnswer) => void,
  ): void {
    this.take(toolCallId)?.answer({ action: 'cancel' });
    const timer = setTimeout(
      () => this.take(toolCallId)?.answer({ action: 'cancel' }),
      this.timeoutMs,
    );
    timer.unref();
    this.held.set(toolCallId, { call, answer, timer });
  }

  /** Takes the held call of a tool call (to answer it and read on), if this process holds it. */
  take(
    toolCallId: string,
  ): { call: InFlightCall; answer: (answer: McpElicitationAnswer) => void } | undefined {
    const held = this.held.get(toolCallId);
    if (held === undefined) return undefined;
    clearTimeout(held.timer);
    this.held.delete(toolCallId);
    return held;
  }

  /** How many calls are held. */
  get size(): number {
    return this.held.size;
  }

  /** Answers every held elicitation `cancel` (on close). */
  cancelAll(): void {
    for (const id of [...this.held.keys()]) this.take(id)?.answer({ action: 'cancel' });
  }
}
