import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatChunk, ChatModel, ChatRequest } from '@parley/core';

/** How a paced model spaces its chunks. */
export type Pace = {
  /** Wait before the first chunk, as a model "thinks". */
  firstChunkMs: number;
  /** Wait between chunks, so text visibly streams. */
  chunkMs: number;
};

/**
 * Wraps a model so its chunks arrive at a human pace. Used by the scripted
 * demo, whose model would otherwise answer instantly; the waits honour the
 * abort signal, so Ctrl-C interrupts them like a real model's stream.
 */
export class PacedModel implements ChatModel {
  readonly name: string;

  constructor(
    private readonly inner: ChatModel,
    private readonly pace: Pace,
  ) {
    this.name = inner.name;
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    const options = signal === undefined ? {} : { signal };
    let first = true;
    for await (const chunk of this.inner.stream(request, signal)) {
      const wait = first ? this.pace.firstChunkMs : this.pace.chunkMs;
      first = false;
      if (wait > 0) await sleep(wait, undefined, options);
      yield chunk;
    }
  }
}
