import { describe, expect, it } from 'vitest';
import { toToolResponse } from './results.js';

describe('MCP tool results as Parley results', () => {
  it('text only: one string; isError: an error result', () => {
    expect(
      toToolResponse({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      output: 'a\nb',
      state: 'success',
    });
    expect(toToolResponse({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({
      output: 'boom',
      state: 'error',
    });
  });

  it('images and audio become data blocks; resources text or data; links text', () => {
    const response = toToolResponse({
      content: [
        { type: 'image', data: 'aW1n', mimeType: 'image/png' },
        { type: 'audio', data: 'YXU=', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'Ymlu' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c', description: 'the c file' },
      ],
    });
    expect(response.output).toEqual([
      { type: 'data', source: { type: 'base64', data: 'aW1n', mediaType: 'image/png' } },
      { type: 'data', source: { type: 'base64', data: 'YXU=', mediaType: 'audio/wav' } },
      { type: 'text', text: '[resource file:///a.txt]\nhello' },
      {
        type: 'data',
        name: 'file:///b.bin',
        source: { type: 'base64', data: 'Ymlu', mediaType: 'application/octet-stream' },
      },
      { type: 'text', text: '[resource link file:///c: the c file]' },
    ]);
  });

  it('structured content is kept in metadata', () => {
    expect(
      toToolResponse({ content: [{ type: 'text', text: '{"t":1}' }], structuredContent: { t: 1 } })
        .metadata,
    ).toEqual({ structuredContent: { t: 1 } });
  });
});
