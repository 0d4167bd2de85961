import { assertNever, toConversation } from '@parley/core';
import type {
  ChatRequest,
  ConversationTurn,
  DataBlock,
  TextBlock,
  ToolResultBlock,
  ToolSchema,
} from '@parley/core';
import type {
  Base64ImageSource,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { dataPlaceholder, toolInputObject } from '../shared/content.js';

/**
 * Extended thinking: a fixed token budget, or `adaptive`, where the model
 * decides when and how much to think (the API's advice for newer models).
 */
export type AnthropicThinking = { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' };

/** Per-model request settings that are not part of the conversation. */
export type AnthropicRequestSettings = {
  model: string;
  maxTokens: number;
  temperature?: number | undefined;
  /** Extended thinking; `undefined` leaves it off. */
  thinking?: AnthropicThinking | undefined;
};

/** Builds the Messages API request: system prompt, conversation, tools, thinking. */
export function toAnthropicParams(
  request: ChatRequest,
  settings: AnthropicRequestSettings,
): MessageCreateParamsStreaming {
  const turns = toConversation(request.messages);
  const system = [
    request.systemPrompt,
    ...turns.flatMap((turn) => (turn.role === 'system' ? [plainText(turn.content)] : [])),
  ]
    .filter((text) => text !== '')
    .join('\n\n');
  const params: MessageCreateParamsStreaming = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    messages: toAnthropicMessages(turns),
    stream: true,
  };
  if (system !== '') params.system = system;
  if (request.tools.length > 0) params.tools = request.tools.map(toAnthropicTool);
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  if (settings.thinking?.type === 'enabled') {
    params.thinking = { type: 'enabled', budget_tokens: settings.thinking.budgetTokens };
  } else if (settings.thinking?.type === 'adaptive') {
    params.thinking = { type: 'adaptive' };
  }
  return params;
}

/** A Parley tool schema as a Messages API tool. */
export function toAnthropicTool(tool: ToolSchema): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: 'object' },
  };
}

/**
 * The conversation as Messages API messages (system turns go to the
 * top-level `system` instead). Tool results become `tool_result` blocks
 * of the user message right after the assistant's `tool_use` blocks, with
 * `is_error: true` for every state but `success` (denied, interrupted,
 * error). Consecutive messages of one role are merged, so a hint after
 * tool results joins their user message, after the results. Thinking goes
 * back only with its signature (the API refuses unsigned thinking), one
 * block per block, in place, with an empty text when it had none; a
 * redacted block goes back as `redacted_thinking` with its `data` unchanged.
 */
export function toAnthropicMessages(turns: readonly ConversationTurn[]): MessageParam[] {
  const messages: MessageParam[] = [];
  for (const turn of turns) {
    const message = turnMessage(turn);
    if (message === undefined || message.content.length === 0) continue;
    const last = messages.at(-1);
    if (last !== undefined && last.role === message.role && Array.isArray(last.content)) {
      last.content.push(...message.content);
    } else {
      messages.push(message);
    }
  }
  return messages;
}

type BlockMessage = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

function turnMessage(turn: ConversationTurn): BlockMessage | undefined {
  switch (turn.role) {
    case 'system':
      return undefined;
    case 'user':
      return { role: 'user', content: turn.content.flatMap(userBlock) };
    case 'assistant':
      return { role: 'assistant', content: turn.content.flatMap(assistantBlock) };
    case 'tool':
      return { role: 'user', content: turn.results.map(toolResult) };
    default:
      return assertNever(turn, 'conversation turn');
  }
}

function plainText(blocks: readonly (TextBlock | DataBlock)[]): string {
  return blocks
    .map((block) => (block.type === 'text' ? block.text : dataPlaceholder(block)))
    .join('\n');
}

/** The API refuses empty text blocks. */
function textBlock(text: string): TextBlockParam[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function isImageType(mediaType: string): mediaType is Base64ImageSource['media_type'] {
  return IMAGE_TYPES.includes(mediaType);
}

/** Images, PDFs and plain text the API reads; anything else becomes a placeholder text. */
function dataBlock(block: DataBlock): TextBlockParam | ImageBlockParam | DocumentBlockParam {
  const { source } = block;
  const mediaType = source.mediaType.toLowerCase();
  if (source.type === 'url') {
    if (mediaType.startsWith('image/'))
      return { type: 'image', source: { type: 'url', url: source.url } };
    if (mediaType === 'application/pdf') {
      return { type: 'document', source: { type: 'url', url: source.url } };
    }
  } else if (isImageType(mediaType)) {
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: source.data } };
  } else if (mediaType === 'application/pdf') {
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: source.data },
      ...(block.name === undefined ? {} : { title: block.name }),
    };
  } else if (mediaType === 'text/plain') {
    return {
      type: 'document',
      source: {
        type: 'text',
        media_type: 'text/plain',
        data: Buffer.from(source.data, 'base64').toString('utf8'),
      },
      ...(block.name === undefined ? {} : { title: block.name }),
    };
  }
  return { type: 'text', text: dataPlaceholder(block) };
}

function userBlock(block: TextBlock | DataBlock): ContentBlockParam[] {
  return block.type === 'text' ? textBlock(block.text) : [dataBlock(block)];
}

function assistantBlock(
  block: Extract<ConversationTurn, { role: 'assistant' }>['content'][number],
): ContentBlockParam[] {
  switch (block.type) {
    case 'text':
      return textBlock(block.text);
    case 'data':
      return textBlock(dataPlaceholder(block));
    case 'thinking':
      if (block.redactedData !== undefined) {
        return [{ type: 'redacted_thinking', data: block.redactedData }];
      }
      return block.signature === undefined
        ? []
        : [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    case 'tool_call':
      return [
        { type: 'tool_use', id: block.id, name: block.name, input: toolInputObject(block.input) },
      ];
    default:
      return assertNever(block, 'assistant block');
  }
}

function toolResult(result: ToolResultBlock): ToolResultBlockParam {
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: result.id };
  if (typeof result.output === 'string') {
    if (result.output !== '') block.content = result.output;
  } else {
    block.content = result.output.flatMap((part) =>
      part.type === 'text' ? textBlock(part.text) : [dataBlock(part)],
    );
  }
  if (result.state !== 'success') block.is_error = true;
  return block;
}
