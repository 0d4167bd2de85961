/**
 * One conversation that exercises every conversion rule, sent through each
 * adapter by the request-conversion tests: data blocks (inline image, image
 * URL, PDF, audio), thinking with a signature, a redacted thinking block and
 * one with only a signature, text, four answered tool calls
 * (success with an image, denied, interrupted, error) whose results arrive
 * out of call order, one unanswered call, a hint, and text after the results.
 */
import type { ChatRequest } from '@parley/core';
import { message } from './chunks.js';

/** A 1×1 PNG, base64. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** The first bytes of a PDF, base64. */
export const PDF = 'JVBERi0xLjQK';

/** The opaque data of a redacted thinking block, sent back byte for byte. */
export const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';

/** The denial text the agent stores for a denied call (SPEC section 5). */
export const DENIED =
  '<system-reminder>The execution of tool "write_note" is denied by user! Reason: not now</system-reminder>';
/** The text the agent stores for an interrupted call. */
export const INTERRUPTED =
  '<system-reminder>The tool call has been interrupted by the user.</system-reminder>';

const writeNoteSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' } },
  required: ['path', 'content'],
  additionalProperties: false,
};

/** The request. */
export function richRequest(): ChatRequest {
  return {
    systemPrompt: 'You are terse.',
    tools: [{ name: 'write_note', description: 'Write a note.', inputSchema: writeNoteSchema }],
    messages: [
      message('user', [
        { type: 'text', text: 'Look at these.' },
        { type: 'data', source: { type: 'base64', data: PNG, mediaType: 'image/png' } },
        {
          type: 'data',
          source: { type: 'url', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' },
        },
        {
          type: 'data',
          name: 'spec.pdf',
          source: { type: 'base64', data: PDF, mediaType: 'application/pdf' },
        },
        {
          type: 'data',
          name: 'memo.wav',
          source: { type: 'base64', data: 'UklGRg==', mediaType: 'audio/wav' },
        },
      ]),
      message('assistant', [
        { type: 'thinking', thinking: 'Four notes.', signature: 'sig-abc' },
        { type: 'thinking', thinking: '', redactedData: REDACTED },
        { type: 'thinking', thinking: '', signature: 'sig-only' },
        { type: 'text', text: 'Writing them.' },
        ...['tc1', 'tc2', 'tc3', 'tc4', 'tc5'].map((id) => ({
          type: 'tool_call' as const,
          id,
          name: 'write_note',
          input: JSON.stringify({ path: `${id}.md`, content: 'x' }),
          state: id === 'tc5' ? ('pending' as const) : ('finished' as const),
          suggestedRules: [],
        })),
        { type: 'tool_result', id: 'tc2', name: 'write_note', output: DENIED, state: 'denied' },
        {
          type: 'tool_result',
          id: 'tc1',
          name: 'write_note',
          state: 'success',
          output: [
            { type: 'text', text: 'saved' },
            { type: 'data', source: { type: 'base64', data: PNG, mediaType: 'image/png' } },
          ],
        },
        {
          type: 'tool_result',
          id: 'tc3',
          name: 'write_note',
          output: INTERRUPTED,
          state: 'interrupted',
        },
        { type: 'tool_result', id: 'tc4', name: 'write_note', output: 'EACCES', state: 'error' },
        { type: 'hint', hint: 'Keep it short.' },
        { type: 'text', text: 'Done.' },
      ]),
    ],
  };
}
