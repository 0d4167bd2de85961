import type {
  ContentBlock,
  DataBlock,
  Msg,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../message/index.js';
import { assertNever } from '../errors/index.js';

/** A provider-neutral turn: what every chat API has in some form. */
export type ConversationTurn =
  | { role: 'system'; content: (TextBlock | DataBlock)[] }
  | { role: 'user'; content: (TextBlock | DataBlock)[] }
  | { role: 'assistant'; content: (TextBlock | DataBlock | ThinkingBlock | ToolCallBlock)[] }
  | { role: 'tool'; results: ToolResultBlock[] };

function hintText(block: Extract<ContentBlock, { type: 'hint' }>): (TextBlock | DataBlock)[] {
  return typeof block.hint === 'string' ? [{ type: 'text', text: block.hint }] : block.hint;
}

/**
 * Splits Parley messages into provider-neutral turns. A reply message holds
 * several model turns (text and tool calls, then their results, then more
 * text...); each run of tool results becomes one `tool` turn ordered like
 * the calls it answers. Hints become user turns. Tool calls that have no
 * result yet are left out, so a provider never sees an unanswered call.
 */
export function toConversation(messages: readonly Msg[]): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      const role = message.role === 'assistant' ? 'assistant' : message.role;
      turns.push({ role, content: [{ type: 'text', text: message.content }] });
      continue;
    }
    const answered = new Set(
      message.content.filter((b) => b.type === 'tool_result').map((b) => b.id),
    );
    let assistant: (TextBlock | DataBlock | ThinkingBlock | ToolCallBlock)[] = [];
    let results: ToolResultBlock[] = [];
    let userContent: (TextBlock | DataBlock)[] = [];
    const flushAssistant = (): void => {
      if (assistant.length > 0) turns.push({ role: 'assistant', content: assistant });
      assistant = [];
    };
    const flushResults = (): void => {
      if (results.length === 0) return;
      const callOrder = new Map<string, number>();
      const lastAssistant = turns.at(-1);
      if (lastAssistant?.role === 'assistant') {
        lastAssistant.content.forEach((b, i) => b.type === 'tool_call' && callOrder.set(b.id, i));
      }
      results.sort((a, b) => (callOrder.get(a.id) ?? 0) - (callOrder.get(b.id) ?? 0));
      turns.push({ role: 'tool', results });
      results = [];
    };
    const flushUser = (): void => {
      if (userContent.length > 0)
        turns.push({ role: message.role === 'system' ? 'system' : 'user', content: userContent });
      userContent = [];
    };
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
        case 'data':
          if (message.role === 'assistant') {
            flushResults();
            assistant.push(block);
          } else {
            userContent.push(block);
          }
          break;
        case 'thinking':
          flushResults();
          assistant.push(block);
          break;
        case 'tool_call':
          flushResults();
          if (answered.has(block.id)) assistant.push(block);
          break;
        case 'tool_result':
          flushAssistant();
          results.push(block);
          break;
        case 'hint':
          flushAssistant();
          flushResults();
          flushUser();
          turns.push({ role: 'user', content: hintText(block) });
          break;
        default:
          assertNever(block, 'content block');
      }
    }
    flushAssistant();
    flushResults();
    flushUser();
  }
  return turns;
}
