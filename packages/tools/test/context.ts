import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPermissionContext } from '@parley/core';
import type { DataBlock, TextBlock, ToolContext, ToolOutput } from '@parley/core';

/** A `ToolContext` for calling `execute` directly in tests. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  const quiet = (): void => undefined;
  return {
    toolCallId: 'call-1',
    replyId: 'reply-1',
    sessionId: 'session-1',
    signal,
    permission: createPermissionContext(),
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  };
}

/** What a tool produced, with streamed chunks joined. */
export type Collected = {
  text: string;
  blocks: (TextBlock | DataBlock)[];
  state: 'success' | 'error' | 'interrupted';
  metadata: Record<string, unknown> | undefined;
  chunks: number;
};

/** Reads a tool's output whatever its form (text, response, stream). */
export async function collect(output: ToolOutput | Promise<ToolOutput>): Promise<Collected> {
  const value = await output;
  if (typeof value === 'string') {
    return {
      text: value,
      blocks: [{ type: 'text', text: value }],
      state: 'success',
      metadata: undefined,
      chunks: 1,
    };
  }
  if (Symbol.asyncIterator in value) {
    const blocks: (TextBlock | DataBlock)[] = [];
    let state: Collected['state'] = 'success';
    let metadata: Record<string, unknown> | undefined;
    let chunks = 0;
    for await (const chunk of value) {
      chunks++;
      if (chunk.type === 'tool_end') {
        state = chunk.state ?? 'success';
        metadata = chunk.metadata;
      } else if (chunk.type !== 'tool_suspend') {
        blocks.push(chunk);
      }
    }
    return { text: textOf(blocks), blocks, state, metadata, chunks };
  }
  const blocks: (TextBlock | DataBlock)[] =
    typeof value.output === 'string' ? [{ type: 'text', text: value.output }] : value.output;
  return {
    text: textOf(blocks),
    blocks,
    state: value.state ?? 'success',
    metadata: value.metadata,
    chunks: 1,
  };
}

function textOf(blocks: readonly (TextBlock | DataBlock)[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A fresh directory under the system temp directory (symlinks resolved), and a way to remove it. */
export function temporaryDirectory(prefix = 'parley-tools-'): { path: string; remove: () => void } {
  const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { path: directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
