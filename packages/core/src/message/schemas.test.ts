import { describe, expect, it } from 'vitest';
import type { ContentBlock, Msg } from './index.js';
import {
  contentBlockSchema,
  dataBlockSchema,
  messageSchema,
  permissionRuleSchema,
  toolCallBlockSchema,
  toolResultBlockSchema,
} from './index.js';

const everyBlock: ContentBlock[] = [
  { type: 'text', text: 'hello' },
  { type: 'text', text: 'with id', id: 'b1' },
  { type: 'data', source: { type: 'base64', data: 'aGk=', mediaType: 'image/png' } },
  {
    type: 'data',
    id: 'd1',
    name: 'logo',
    source: { type: 'url', url: 'https://x', mediaType: 'image/svg+xml' },
  },
  { type: 'thinking', thinking: 'let me see', signature: 'sig' },
  { type: 'hint', hint: 'remember the style guide', source: 'runtime' },
  { type: 'hint', hint: [{ type: 'text', text: 'see attached' }] },
  {
    type: 'tool_call',
    id: 'tc1',
    name: 'Bash',
    input: '{"command":"ls"}',
    state: 'asking',
    suggestedRules: [
      { toolName: 'Bash', ruleContent: 'ls:*', behavior: 'allow', source: 'suggested' },
    ],
  },
  { type: 'tool_result', id: 'tc1', name: 'Bash', output: 'a.txt', state: 'success' },
  {
    type: 'tool_result',
    id: 'tc2',
    name: 'AskUser',
    output: [{ type: 'text', text: 'OAuth' }],
    state: 'success',
    metadata: { answers: [] },
  },
];

function issuePaths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) {
  return result.error?.issues.map((issue) => issue.path.join('.'));
}

describe('message schemas', () => {
  it('accept every block type, with and without optional fields', () => {
    for (const block of everyBlock) expect(contentBlockSchema.parse(block)).toEqual(block);
  });

  it('accept messages with string or block content', () => {
    const messages: Msg[] = [
      {
        id: 'm1',
        name: 'user',
        role: 'user',
        content: 'hi',
        createdAt: '2025-01-01T00:00:00.000Z',
      },
      { id: 'm2', name: 'assistant', role: 'assistant', content: everyBlock, finishedReason: null },
      { id: 'm3', name: 'system', role: 'system', content: [], metadata: { pinned: true } },
    ];
    for (const message of messages) expect(messageSchema.parse(message)).toEqual(message);
  });

  it('refuse unknown keys (closed types)', () => {
    const result = toolCallBlockSchema.safeParse({ ...everyBlock[7], stat: 'asking' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it('refuse an optional field present as undefined (exact optional properties)', () => {
    const result = messageSchema.safeParse({
      id: 'm',
      name: 'n',
      role: 'user',
      content: 'x',
      createdAt: undefined,
    });
    expect(issuePaths(result)).toEqual(['createdAt']);
  });

  it('refuse a rule behaviour outside allow/deny/ask', () => {
    const result = permissionRuleSchema.safeParse({
      toolName: 'Bash',
      ruleContent: null,
      behavior: 'passthrough',
      source: 'user',
    });
    expect(issuePaths(result)).toEqual(['behavior']);
  });

  it('refuse a data source that mixes the two kinds', () => {
    const result = dataBlockSchema.safeParse({
      type: 'data',
      source: { type: 'url', data: 'aGk=', mediaType: 'image/png' },
    });
    expect(result.success).toBe(false);
  });

  it('refuse a tool result whose output blocks are not text or data', () => {
    const result = toolResultBlockSchema.safeParse({
      type: 'tool_result',
      id: 'tc1',
      name: 'Read',
      output: [{ type: 'thinking', thinking: 'no' }],
      state: 'success',
    });
    expect(result.success).toBe(false);
  });

  it('refuse a message with an unknown role', () => {
    const result = messageSchema.safeParse({ id: 'm', name: 'n', role: 'tool', content: '' });
    expect(issuePaths(result)).toEqual(['role']);
  });
});
