import { assertNever, toConversation } from '@parley/core';
import type {
  ChatRequest,
  ConversationTurn,
  DataBlock,
  TextBlock,
  ToolResultBlock,
  ToolSchema,
} from '@parley/core';
import type { ChatRequest as OllamaChatRequest, Message, Options, Tool } from 'ollama';
import { dataPlaceholder, toolInputObject } from '../shared/content.js';
import { isRecord } from '../shared/read.js';

/** How hard a thinking model should think; `true`/`false` switch thinking on or off. */
export type OllamaThink = boolean | 'high' | 'medium' | 'low';

/** Per-model request settings that are not part of the conversation. */
export type OllamaRequestSettings = {
  model: string;
  think?: OllamaThink | undefined;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  keepAlive?: string | number | undefined;
};

/** Builds the `/api/chat` request: messages, tools, `think` and sampling options. */
export function toOllamaRequest(
  request: ChatRequest,
  settings: OllamaRequestSettings,
): OllamaChatRequest & { stream: true } {
  const body: OllamaChatRequest & { stream: true } = {
    model: settings.model,
    messages: toOllamaMessages(request),
    stream: true,
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toOllamaTool);
  if (settings.think !== undefined) body.think = settings.think;
  if (settings.keepAlive !== undefined) body.keep_alive = settings.keepAlive;
  const options: Partial<Options> = {};
  if (settings.maxTokens !== undefined) options.num_predict = settings.maxTokens;
  if (settings.temperature !== undefined) options.temperature = settings.temperature;
  if (Object.keys(options).length > 0) body.options = options;
  return body;
}

type OllamaParameters = NonNullable<Tool['function']['parameters']>;
type OllamaProperty = NonNullable<OllamaParameters['properties']>[string];

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isUnknownArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/**
 * The SDK types tool parameters more narrowly than JSON Schema. The fields
 * it names are checked and set; every other field of the schema (nested
 * `properties`, `anyOf`, `additionalProperties`…) goes along unchanged.
 */
function toProperty(value: unknown): OllamaProperty {
  if (!isRecord(value)) return {};
  const typed: OllamaProperty = {};
  const { type, description } = value;
  if (typeof type === 'string' || isStringArray(type)) typed.type = type;
  if (typeof description === 'string') typed.description = description;
  const values = value['enum'];
  if (isUnknownArray(values)) typed.enum = values;
  return Object.assign({}, value, typed);
}

function toParameters(schema: Record<string, unknown>): OllamaParameters {
  const typed: OllamaParameters = {};
  const { type, required, properties } = schema;
  if (typeof type === 'string') typed.type = type;
  if (isStringArray(required)) typed.required = required;
  if (isRecord(properties)) {
    typed.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, toProperty(property)]),
    );
  }
  return Object.assign({}, schema, typed);
}

/** A Parley tool schema as an Ollama function tool. */
export function toOllamaTool(tool: ToolSchema): Tool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: toParameters(tool.inputSchema),
    },
  };
}

function isInlineImage(block: DataBlock): boolean {
  return block.source.type === 'base64' && block.source.mediaType.startsWith('image/');
}

/**
 * Base64 images as bytes. The SDK reads a string image as a file path when
 * a file of that name exists; bytes are always sent as they are.
 */
function images(blocks: readonly (TextBlock | DataBlock)[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const block of blocks) {
    if (block.type === 'data' && block.source.type === 'base64' && isInlineImage(block)) {
      out.push(Buffer.from(block.source.data, 'base64'));
    }
  }
  return out;
}

/** Text of text blocks; data Ollama cannot take inline (URLs, non-images) becomes a placeholder. */
function contentText(blocks: readonly (TextBlock | DataBlock)[]): string {
  return blocks
    .flatMap((block) => {
      if (block.type === 'text') return [block.text];
      return isInlineImage(block) ? [] : [dataPlaceholder(block)];
    })
    .join('\n');
}

function withImages(message: Message, blocks: readonly (TextBlock | DataBlock)[]): Message {
  const data = images(blocks);
  if (data.length > 0) message.images = data;
  return message;
}

/**
 * The conversation as Ollama chat messages: the system prompt first,
 * thinking sent back in the assistant message's `thinking`, tool calls with
 * their arguments as objects, and one `tool` message per result (named by
 * `tool_name`, in call order, whatever its state; the text says what
 * happened, since the API has no error flag). Images travel in `images`.
 */
export function toOllamaMessages(request: ChatRequest): Message[] {
  const messages: Message[] = [];
  if (request.systemPrompt !== '') messages.push({ role: 'system', content: request.systemPrompt });
  for (const turn of toConversation(request.messages)) messages.push(...turnMessages(turn));
  return messages;
}

function turnMessages(turn: ConversationTurn): Message[] {
  switch (turn.role) {
    case 'system':
    case 'user':
      return [withImages({ role: turn.role, content: contentText(turn.content) }, turn.content)];
    case 'assistant':
      return assistantMessage(turn.content);
    case 'tool':
      return turn.results.map(toolMessage);
    default:
      return assertNever(turn, 'conversation turn');
  }
}

function assistantMessage(
  blocks: Extract<ConversationTurn, { role: 'assistant' }>['content'],
): Message[] {
  const text: string[] = [];
  const thinking: string[] = [];
  const message: Message = { role: 'assistant', content: '' };
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text.push(block.text);
        break;
      case 'data':
        text.push(dataPlaceholder(block));
        break;
      case 'thinking':
        // Redacted and signature-only blocks have no text Ollama could read.
        if (block.thinking !== '') thinking.push(block.thinking);
        break;
      case 'tool_call':
        (message.tool_calls ??= []).push({
          function: { name: block.name, arguments: toolInputObject(block.input) },
        });
        break;
      default:
        assertNever(block, 'assistant block');
    }
  }
  message.content = text.join('\n');
  if (thinking.length > 0) message.thinking = thinking.join('\n');
  if (message.content === '' && message.tool_calls === undefined) return [];
  return [message];
}

function toolMessage(result: ToolResultBlock): Message {
  const blocks = typeof result.output === 'string' ? [] : result.output;
  const text = typeof result.output === 'string' ? result.output : contentText(blocks);
  return withImages(
    {
      role: 'tool',
      tool_name: result.name,
      content: text === '' ? `(no output; state: ${result.state})` : text,
    },
    blocks,
  );
}
