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
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { dataPlaceholder, dataUrl, isImage, outputData, outputText } from '../shared/content.js';

/** Per-model request settings that are not part of the conversation. */
export type OpenAIRequestSettings = {
  model: string;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
};

/**
 * Builds the Chat Completions request: the conversation, the tools, and
 * `stream_options.include_usage` so the last chunk carries token counts.
 */
export function toOpenAIParams(
  request: ChatRequest,
  settings: OpenAIRequestSettings,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: settings.model,
    messages: toOpenAIMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) params.tools = request.tools.map(toOpenAITool);
  if (settings.maxTokens !== undefined) params.max_completion_tokens = settings.maxTokens;
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  return params;
}

/** A Parley tool schema as a Chat Completions function tool. */
export function toOpenAITool(tool: ToolSchema): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

/**
 * The conversation as Chat Completions messages. The system prompt comes
 * first; each tool result becomes a `tool` message right after the
 * assistant message that made the call (whatever its state: denied,
 * interrupted and error results are sent as the text the model should
 * read). Thinking is not sent back: Chat Completions has no field for it.
 */
export function toOpenAIMessages(request: ChatRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt !== '') messages.push({ role: 'system', content: request.systemPrompt });
  for (const turn of toConversation(request.messages)) {
    messages.push(...turnMessages(turn));
  }
  return messages;
}

function turnMessages(turn: ConversationTurn): ChatCompletionMessageParam[] {
  switch (turn.role) {
    case 'system':
      return [{ role: 'system', content: plainText(turn.content) }];
    case 'user':
      return [{ role: 'user', content: userContent(turn.content) }];
    case 'assistant':
      return assistantMessage(turn.content);
    case 'tool':
      return toolMessages(turn.results);
    default:
      return assertNever(turn, 'conversation turn');
  }
}

function plainText(blocks: readonly (TextBlock | DataBlock)[]): string {
  return blocks
    .map((block) => (block.type === 'text' ? block.text : dataPlaceholder(block)))
    .join('\n');
}

function dataPart(block: DataBlock): ChatCompletionContentPart {
  if (isImage(block.source))
    return { type: 'image_url', image_url: { url: dataUrl(block.source) } };
  if (block.source.type === 'base64' && block.source.mediaType === 'application/pdf') {
    return {
      type: 'file',
      file: { file_data: dataUrl(block.source), filename: block.name ?? 'document.pdf' },
    };
  }
  return { type: 'text', text: dataPlaceholder(block) };
}

/** Text-only content stays a plain string, which every compatible server accepts. */
function userContent(
  blocks: readonly (TextBlock | DataBlock)[],
): string | ChatCompletionContentPart[] {
  if (blocks.every((block) => block.type === 'text')) return plainText(blocks);
  return blocks.map((block) =>
    block.type === 'text' ? { type: 'text', text: block.text } : dataPart(block),
  );
}

function assistantMessage(
  blocks: Extract<ConversationTurn, { role: 'assistant' }>['content'],
): ChatCompletionMessageParam[] {
  const text: string[] = [];
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text.push(block.text);
        break;
      case 'data':
        text.push(dataPlaceholder(block));
        break;
      case 'thinking':
        break;
      case 'tool_call':
        toolCalls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: block.input },
        });
        break;
      default:
        assertNever(block, 'assistant block');
    }
  }
  const content = text.join('\n');
  if (content === '' && toolCalls.length === 0) return [];
  const message: ChatCompletionAssistantMessageParam = { role: 'assistant' };
  if (content !== '') message.content = content;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return [message];
}

/**
 * One `tool` message per result, in call order. Tool messages carry text
 * only, so images a tool returned follow in one user message after them.
 */
function toolMessages(results: readonly ToolResultBlock[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  const attachments: ChatCompletionContentPart[] = [];
  for (const result of results) {
    const text = outputText(result.output);
    messages.push({
      role: 'tool',
      tool_call_id: result.id,
      content: text === '' ? `(no output; state: ${result.state})` : text,
    });
    const data = outputData(result.output);
    if (data.length > 0) {
      attachments.push({ type: 'text', text: `Attachments returned by tool call ${result.id}:` });
      attachments.push(...data.map(dataPart));
    }
  }
  if (attachments.length > 0) messages.push({ role: 'user', content: attachments });
  return messages;
}
