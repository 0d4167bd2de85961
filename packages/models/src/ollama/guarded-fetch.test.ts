import { describe, expect, it } from 'vitest';
import { MalformedChunkError, ModelApiError } from '../shared/errors.js';
import { ndjsonGuard } from './guarded-fetch.js';

/** Pipes byte pieces through the guard and returns what came out, as text. */
async function pipe(pieces: Uint8Array[]): Promise<string> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  const decoder = new TextDecoder();
  let out = '';
  for await (const chunk of source.pipeThrough(ndjsonGuard())) out += decoder.decode(chunk);
  return out;
}

/** Cuts bytes at the given offsets. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
}

describe('ndjsonGuard', () => {
  const text = '{"message":{"content":"Café"},"done":false}\n{"done":true}\n';
  const bytes = new TextEncoder().encode(text);

  it('passes lines split anywhere, even inside a multi-byte character, through whole', async () => {
    const eAcute = text.indexOf('é');
    const pieces = cut(bytes, [3, eAcute + 1, eAcute + 2, bytes.length - 4]);
    expect(await pipe(pieces)).toBe(text);
  });

  it('accepts a last line without a newline', async () => {
    expect(await pipe([new TextEncoder().encode('{"done":true}')])).toBe('{"done":true}\n');
  });

  it('fails the stream on a line that is not JSON', async () => {
    const broken = new TextEncoder().encode('{"done":false}\n{"done":\n');
    await expect(pipe(cut(broken, [5]))).rejects.toBeInstanceOf(MalformedChunkError);
  });

  it('fails the stream on an error line', async () => {
    const failing = new TextEncoder().encode('{"error":"out of memory"}\n');
    await expect(pipe([failing])).rejects.toBeInstanceOf(ModelApiError);
  });
});
