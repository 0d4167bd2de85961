import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  InputRequiredResult,
} from '@modelcontextprotocol/client';
import type { McpElicitationAnswer } from './elicitation.js';

/** An elicitation a server sent while a call was open, with the way to answer it. */
export type HeldElicitation = {
  kind: 'elicit';
  request: ElicitRequestFormParams | ElicitRequestURLParams;
  answer: (answer: McpElicitationAnswer) => void;
};

/** What an open `tools/call` produced next. */
export type InFlightEvent =
  | HeldElicitation
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'input_required'; result: InputRequiredResult }
  | { kind: 'failed'; error: unknown };

/**
 * One open `tools/call`: the elicitations the server sends while it runs,
 * then its outcome, read one at a time with `next()`. It outlives a parked
 * reply (the server holds the request open), so a later run of the same
 * tool call in this process can answer and read on.
 */
export class InFlightCall {
  private readonly queue: InFlightEvent[] = [];
  private waiter: ((event: InFlightEvent) => void) | undefined;
  /** Whether an elicitation of this call waits for its answer. */
  waiting = false;
  /** Whether the call ended (result or failure). */
  settled = false;

  private readonly controller: AbortController;

  /**
   * `controller` aborts the request (the SDK then sends `notifications/cancelled`);
   * it belongs to the call, not to one run of the agent, since the call can
   * outlive the run that started it.
   */
  constructor(
    outcome: Promise<CallToolResult | InputRequiredResult>,
    isInputRequired: (value: unknown) => value is InputRequiredResult,
    controller: AbortController,
  ) {
    this.controller = controller;
    outcome.then(
      (result) => {
        this.settled = true;
        this.push(
          isInputRequired(result) ? { kind: 'input_required', result } : { kind: 'result', result },
        );
      },
      (error: unknown) => {
        this.settled = true;
        this.push({ kind: 'failed', error });
      },
    );
  }

  /** A server's elicitation for this call; resolves with the person's answer. */
  elicit(request: HeldElicitation['request']): Promise<McpElicitationAnswer> {
    this.waiting = true;
    return new Promise((resolve) => {
      this.push({
        kind: 'elicit',
        request,
        answer: (answer) => {
          this.waiting = false;
          resolve(answer);
        },
      });
    });
  }

  /**
   * The next thing the call produced, waiting for it; if `signal` (the
   * running reply's) aborts meanwhile, the request is cancelled and its
   * failure comes next.
   */
  async nextUnless(signal: AbortSignal): Promise<InFlightEvent> {
    const cancel = (): void => this.controller.abort(signal.reason);
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel);
    try {
      return await this.next();
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** The next thing the call produced (waits for it). */
  next(): Promise<InFlightEvent> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private push(event: InFlightEvent): void {
    const waiter = this.waiter;
    if (waiter === undefined) {
      this.queue.push(event);
      return;
    }
    this.waiter = undefined;
    waiter(event);
  }
}
