import { newId, nowIso } from '../util/ids.js';
import type { ContentBlock, TextBlock } from './blocks.js';

/** Why a reply ended. */
export type FinishedReason = 'completed' | 'interrupted' | 'exceed_max_iters' | 'error';

/** One message of the conversation. All assistant output of a reply lives in one `Msg`. */
export type Msg = {
  id: string;
  name: string;
  role: 'user' | 'assistant' | 'system';
  content: string | ContentBlock[];
  finishedReason?: FinishedReason | null;
  metadata?: Record<string, unknown>;
  createdAt?: string;
};

/** A user message from text or blocks. */
export function userMsg(content: string | ContentBlock[], name = 'user'): Msg {
  return { id: newId(), name, role: 'user', content, createdAt: nowIso() };
}

/** An assistant message from text or blocks. */
export function assistantMsg(
  content: string | ContentBlock[],
  name = 'assistant',
  fields: Partial<Pick<Msg, 'id' | 'finishedReason' | 'metadata'>> = {},
): Msg {
  return { id: newId(), name, role: 'assistant', content, createdAt: nowIso(), ...fields };
}

/** The message's blocks; a string content is one text block. */
export function blocksOf(message: Msg): ContentBlock[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : message.content;
}

/** The text of a message: a string content as is, else its text blocks joined by newlines. */
export function textOf(message: Msg): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
