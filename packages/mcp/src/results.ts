import { Buffer } from 'node:buffer';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { assertNever } from '@parley/core';
import type { DataBlock, TextBlock, ToolResponse } from '@parley/core';
import { jsonProblem } from './json-bounds.js';

/** The most result text the model reads, as the Bash tool keeps (characters). */
export const MAX_RESULT_CHARS = 30_000;
/** Of a longer text, how many characters of its end are kept (the rest is its start). */
const TAIL_CHARS = 5_000;
/** A cut result's whole text is kept in `metadata.fullText` up to this size (characters). */
export const MAX_FULL_TEXT_CHARS = 256 * 1024;
/** The largest image, audio or blob kept (characters of base64, about 3.75 MB of data). */
export const MAX_DATA_CHARS = 5 * 1024 * 1024;
/** The largest structured content kept in `metadata.structuredContent` (characters of JSON). */
export const MAX_STRUCTURED_CHARS = 256 * 1024;

/** One MCP content block as Parley blocks (text, or data for images, audio and blobs). */
function blockOf(content: ContentBlock): TextBlock | DataBlock {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text };
    case 'image':
    case 'audio':
      return dataBlock(content.data, content.mimeType);
    case 'resource': {
      const resource = content.resource;
      if ('text' in resource) {
        return { type: 'text', text: `[resource ${resource.uri}]\n${resource.text}` };
      }
      return dataBlock(
        resource.blob,
        resource.mimeType ?? 'application/octet-stream',
        resource.uri,
      );
    }
    case 'resource_link':
      return {
        type: 'text',
        text: `[resource link ${content.uri}${content.description === undefined ? '' : `: ${content.description}`}]`,
      };
    default:
      return assertNever(content, 'MCP content block');
  }
}

/** A data block, or a note in its place when it is larger than `MAX_DATA_CHARS`. */
function dataBlock(data: string, mediaType: string, name?: string): TextBlock | DataBlock {
  if (data.length > MAX_DATA_CHARS) {
    const bytes = Math.floor((data.length * 3) / 4);
    return {
      type: 'text',
      text: `[${mediaType} of about ${bytes} bytes left out: larger than ${MAX_DATA_CHARS} characters of base64]`,
    };
  }
  return {
    type: 'data',
    ...(name === undefined ? {} : { name }),
    source: { type: 'base64', data, mediaType },
  };
}

/** The text cut to `MAX_RESULT_CHARS`: its start and end, and a note of what was cut between. */
function capText(text: string): { text: string; cut?: { characters: number; bytes: number } } {
  if (text.length <= MAX_RESULT_CHARS) return { text };
  const head = text.slice(0, MAX_RESULT_CHARS - TAIL_CHARS);
  const tail = text.slice(text.length - TAIL_CHARS);
  const removed = text.slice(head.length, text.length - TAIL_CHARS);
  const cut = { characters: removed.length, bytes: Buffer.byteLength(removed, 'utf8') };
  return {
    text: `${head}\n\n[... truncated: ${cut.bytes} bytes (${cut.characters} characters) cut ...]\n\n${tail}`,
    cut,
  };
}

/**
 * A `tools/call` result as a Parley tool result, capped (servers are
 * untrusted): text, images and embedded resources become blocks; `isError`
 * an `error` result. Text longer than `MAX_RESULT_CHARS` keeps its start
 * and end with a "truncated: N bytes" note between (`metadata.truncated`;
 * the whole text in `metadata.fullText` when it is at most
 * `MAX_FULL_TEXT_CHARS`); a data block over `MAX_DATA_CHARS` becomes a
 * note. Structured content is kept in `metadata.structuredContent` for
 * programs (the model reads the content blocks, which servers fill with the
 * same data) unless it is too deep or too large for the session, then
 * `metadata.structuredContentLeftOut` says why.
 */
export function toToolResponse(result: CallToolResult): ToolResponse {
  const blocks = result.content.map(blockOf);
  const metadata: Record<string, unknown> = {};
  const state = result.isError === true ? 'error' : 'success';
  let output: ToolResponse['output'];
  if (blocks.every((block) => block.type === 'text')) {
    const whole = blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    const capped = capText(whole);
    output = capped.text;
    if (capped.cut !== undefined) {
      metadata['truncated'] = capped.cut;
      if (whole.length <= MAX_FULL_TEXT_CHARS) metadata['fullText'] = whole;
    }
  } else {
    output = capBlocks(blocks, metadata);
  }
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const problem = jsonProblem(structured, { maxChars: MAX_STRUCTURED_CHARS });
    if (problem === undefined) metadata['structuredContent'] = structured;
    else metadata['structuredContentLeftOut'] = problem;
  }
  return Object.keys(metadata).length === 0 ? { output, state } : { output, state, metadata };
}

/** Mixed blocks: the text blocks share the `MAX_RESULT_CHARS` budget, each cut as needed. */
function capBlocks(
  blocks: (TextBlock | DataBlock)[],
  metadata: Record<string, unknown>,
): (TextBlock | DataBlock)[] {
  let characters = 0;
  let bytes = 0;
  let left = MAX_RESULT_CHARS;
  const out = blocks.map((block): TextBlock | DataBlock => {
    if (block.type !== 'text') return block;
    if (block.text.length <= left) {
      left -= block.text.length;
      return block;
    }
    const kept = block.text.slice(0, left);
    const removed = block.text.slice(left);
    left = 0;
    characters += removed.length;
    bytes += Buffer.byteLength(removed, 'utf8');
    return {
      type: 'text',
      text: `${kept}\n\n[... truncated: ${Buffer.byteLength(removed, 'utf8')} bytes (${removed.length} characters) cut ...]`,
    };
  });
  if (characters > 0) metadata['truncated'] = { characters, bytes };
  return out;
}
