import type { ChatChunk } from '@parley/core';
import { MalformedChunkError, abortError, isAborted } from './errors.js';
import { ShapeError } from './read.js';

/**
 * Turns one provider's parsed stream events into Parley chunks. `accept`
 * is called once per event, in order; `finish` once after the last, and
 * returns the closing chunks (open tool calls closed, `usage`, `finish`).
 * Both may throw a `ShapeError` for a payload of the wrong shape.
 */
export interface StreamTranslator {
  accept(event: unknown): ChatChunk[];
  finish(): ChatChunk[];
}

function preview(event: unknown): string | undefined {
  try {
    return JSON.stringify(event);
  } catch {
    return undefined;
  }
}

/**
 * Drives a translator over an SDK stream. Errors are mapped with
 * `mapError` (SDK errors to `ModelError`s), a `ShapeError` becomes a
 * `MalformedChunkError` quoting the chunk, and once `signal` has fired the
 * only error is an `AbortError`, even where an SDK would end the stream
 * quietly on abort (the OpenAI and Anthropic streams do).
 */
export async function* translateStream(
  provider: string,
  events: AsyncIterable<unknown>,
  translator: StreamTranslator,
  signal: AbortSignal | undefined,
  mapError: (error: unknown) => unknown,
): AsyncGenerator<ChatChunk, void, undefined> {
  let current: unknown;
  try {
    for await (const event of events) {
      current = event;
      yield* translator.accept(event);
    }
    current = undefined;
    if (isAborted(signal)) throw abortError();
    yield* translator.finish();
  } catch (error) {
    if (isAborted(signal)) throw abortError();
    if (error instanceof ShapeError) {
      const chunk = current === undefined ? undefined : preview(current);
      throw new MalformedChunkError(provider, error.message, {
        ...(chunk === undefined ? {} : { chunk }),
        cause: error,
      });
    }
    throw mapError(error);
  }
}
