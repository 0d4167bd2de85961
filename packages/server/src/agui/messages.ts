import type { AssistantMessage, Message } from '@ag-ui/core';
import { textOf } from '@parley/core';
import type { Msg, ToolResultBlock } from '@parley/core';
import { InvalidRequestError } from '../errors.js';
import { callsMessageId, clientMessageId, toolMessageId } from './event-mapper.js';
import type { AguiMessage } from './wire-types.js';

/** The text of a tool result's output (data parts are left out). */
export function resultText(result: ToolResultBlock): string {
  if (typeof result.output === 'string') return result.output;
  return result.output.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/**
 * An assistant reply as AG-UI messages, with the ids the event mapper
 * gives while it streams: one assistant message per text block (the block
 * id), tool calls on the message before them (or on one of their own),
 * a reasoning message per thinking block, a tool message per result.
 */
function assistantMessages(message: Msg): Message[] {
  if (typeof message.content === 'string') {
    return [{ id: message.id, role: 'assistant', content: message.content }];
  }
  const out: Message[] = [];
  let current: AssistantMessage | undefined;
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        current = {
          id: block.id ?? `${message.id}:${index}`,
          role: 'assistant',
          content: block.text,
        };
        out.push(current);
        return;
      case 'thinking':
        out.push({
          id: block.id ?? `${message.id}:${index}`,
          role: 'reasoning',
          content: block.thinking,
        });
        return;
      case 'tool_call': {
        if (current === undefined) {
          current = { id: callsMessageId(block.id), role: 'assistant' };
          out.push(current);
        }
        const call = {
          id: block.id,
          type: 'function' as const,
          function: { name: block.name, arguments: block.input },
        };
        current.toolCalls = [...(current.toolCalls ?? []), call];
        return;
      }
      case 'tool_result': {
        const text = resultText(block);
        out.push({
          id: clientMessageId(block.metadata) ?? toolMessageId(block.id),
          role: 'tool',
          toolCallId: block.id,
          content: text,
          ...(block.state === 'error' ? { error: text } : {}),
        });
        current = undefined;
        return;
      }
      case 'data':
      case 'hint':
        return;
    }
  });
  return out;
}

/** The conversation of a session as AG-UI messages, for `MESSAGES_SNAPSHOT`. */
export function snapshotMessages(context: readonly Msg[]): Message[] {
  return context.flatMap((message): Message[] => {
    switch (message.role) {
      case 'assistant':
        return assistantMessages(message);
      case 'user':
        return [{ id: message.id, role: 'user', content: textOf(message) }];
      case 'system':
        return [{ id: message.id, role: 'system', content: textOf(message) }];
    }
  });
}

/**
 * The user messages of an AG-UI input the session does not have yet, as
 * Parley messages with the client's ids (so the next snapshot names them
 * as the client does). Only text content is taken; a message with other
 * parts is refused (400), not silently cut.
 */
export function newUserMessages(
  messages: readonly AguiMessage[],
  known: ReadonlySet<string>,
): Msg[] {
  const fresh: Msg[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user' || known.has(message.id)) return;
    let text: string;
    if (typeof message.content === 'string') {
      text = message.content;
    } else {
      const parts: string[] = [];
      message.content.forEach((part, at) => {
        if (part.type !== 'text') {
          throw new InvalidRequestError(
            `messages.${index}.content.${at}`,
            `messages.${index}.content.${at}: only text parts are taken, not '${part.type}'.`,
          );
        }
        parts.push(part.text);
      });
      text = parts.join('\n');
    }
    fresh.push({
      id: message.id,
      name: message.name ?? 'user',
      role: 'user',
      content: text,
      createdAt: new Date().toISOString(),
    });
  });
  return fresh;
}
