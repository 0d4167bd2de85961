import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { assertNever } from '@parley/core';
import type { DataBlock, TextBlock, ToolResponse } from '@parley/core';

/** One MCP content block as Parley blocks (text, or data for images, audio and blobs). */
function blockOf(content: ContentBlock): TextBlock | DataBlock {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text };
    case 'image':
    case 'audio':
      return {
        type: 'data',
        source: { type: 'base64', data: content.data, mediaType: content.mimeType },
      };
    case 'resource': {
      const resource = content.resource;
      if ('text' in resource) {
        return { type: 'text', text: `[resource ${resource.uri}]\n${resource.text}` };
      }
      return {
        type: 'data',
        name: resource.uri,
        source: {
          type: 'base64',
          data: resource.blob,
          mediaType: resource.mimeType ?? 'application/octet-stream',
        },
      };
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

/**
 * A `tools/call` result as a Parley tool result: text, images and embedded
 * resources become blocks; `isError` an `error` result; structured content
 * is kept in `metadata.structuredContent` for programs (the model reads the
 * content blocks, which servers fill with the same data).
 */
export function toToolResponse(result: CallToolResult): ToolResponse {
  const blocks = result.content.map(blockOf);
  const response: ToolResponse = {
    output: blocks.every((block) => block.type === 'text')
      ? blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n')
      : blocks,
    state: result.isError === true ? 'error' : 'success',
  };
  if (result.structuredContent !== undefined) {
    response.metadata = { structuredContent: result.structuredContent };
  }
  return response;
}
