import type { DataBlock, TextBlock, ToolResultBlock } from '@parley/core';
import { isRecord } from './read.js';

/** The source of a data block: inline base64 or a URL, with its media type. */
export type DataSource = DataBlock['source'];

/** True for `image/*` media types. */
export function isImage(source: DataSource): boolean {
  return source.mediaType.toLowerCase().startsWith('image/');
}

/** A `data:` URL for an inline source, or the source's own URL. */
export function dataUrl(source: DataSource): string {
  return source.type === 'base64' ? `data:${source.mediaType};base64,${source.data}` : source.url;
}

/**
 * What a model is told in place of content its provider cannot take (say,
 * a PDF sent to a text-only API): the model learns something was there
 * instead of the request failing.
 */
export function dataPlaceholder(block: DataBlock): string {
  const name = block.name === undefined ? '' : ` "${block.name}"`;
  const where = block.source.type === 'url' ? ` at ${block.source.url}` : '';
  return `[${block.source.mediaType} attachment${name}${where} omitted: this model cannot read it]`;
}

/** The text parts of a tool result's output, joined by newlines. */
export function outputText(output: ToolResultBlock['output']): string {
  if (typeof output === 'string') return output;
  return output
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** The data blocks of a tool result's output. */
export function outputData(output: ToolResultBlock['output']): DataBlock[] {
  if (typeof output === 'string') return [];
  return output.filter((block): block is DataBlock => block.type === 'data');
}

/**
 * A tool call's raw JSON input as an object, for providers that take tool
 * input as an object (Anthropic, Ollama). Input that is not a JSON object
 * (the model produced bad JSON, and the call got an error result) is sent
 * as `{}`: the error result next to it tells the model what went wrong.
 */
export function toolInputObject(input: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(input);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
