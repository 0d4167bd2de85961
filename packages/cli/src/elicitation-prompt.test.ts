import { describe, expect, it } from 'vitest';
import type { ToolCallBlock } from '@parley/core';
import { parseElicitationCall } from '@parley/mcp';
import { formFields, formatElicitation } from './elicitation-prompt.js';
import { loadMcpTools } from './mcp-tools.js';
import { parseCommandLine } from './args.js';
import { plainColors } from './theme.js';

const call = (input: Record<string, unknown>): ToolCallBlock => ({
  type: 'tool_call',
  id: 'el',
  name: 'McpElicitation',
  input: JSON.stringify(input),
  state: 'submitted',
  suggestedRules: [],
});

describe('MCP elicitation in the console', () => {
  it('reads a form schema into fields: text, numbers, yes/no, choices; required kept', () => {
    const fields = formFields({
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', description: 'Your name' },
        age: { type: 'integer' },
        ok: { type: 'boolean', title: 'Agree' },
        color: { type: 'string', enum: ['red', 'blue'] },
        size: {
          type: 'string',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
      },
      required: ['name'],
    });
    expect(fields.map((field) => [field.name, field.type, field.required, field.choices])).toEqual([
      ['name', 'string', true, undefined],
      ['age', 'integer', false, undefined],
      ['ok', 'boolean', false, undefined],
      ['color', 'string', false, ['red', 'blue']],
      ['size', 'string', false, ['s', 'l']],
    ]);
    expect(fields[0]?.title).toBe('Name');
    expect(fields[1]?.title).toBe('age');
  });

  it('shows who asks, during which tool, and a URL request shows its link', () => {
    const colors = plainColors;
    const form = parseElicitationCall(
      call({
        server: 'ev',
        tool: 'book',
        mode: 'form',
        message: 'Which room?',
        requestedSchema: { type: 'object', properties: {} },
      }),
    );
    expect(formatElicitation(form, colors)).toBe(
      '? MCP server ev asks you (during book)\n│ Which room?\n',
    );
    const link = parseElicitationCall(
      call({
        server: 'ev',
        tool: 'login',
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.test/auth',
      }),
    );
    expect(formatElicitation(link, colors)).toContain(
      '│ open: https://example.test/auth\n│ host: example.test',
    );
  });

  it('a link that is not https: (or http: to this machine) is shown refused, not offered', () => {
    const asked = (url: string) =>
      formatElicitation(
        parseElicitationCall(
          call({ server: 'ev', tool: 'login', mode: 'url', message: 'Sign in', url }),
        ),
        plainColors,
      );
    expect(asked('javascript:alert(1)')).toContain(
      '│ ✗ link refused: only https: links (and http: to this machine) are offered, not javascript:',
    );
    expect(asked('javascript:alert(1)')).not.toContain('open:');
    expect(asked('http://127.0.0.1:5000/cb')).toContain('│ host: 127.0.0.1:5000');
  });

  it('--mcp FILE is parsed, and a bad file is an error naming it', async () => {
    expect(parseCommandLine(['chat', '--mcp', 'mcp.json'])).toEqual({
      kind: 'chat',
      args: { mcp: 'mcp.json' },
    });
    await expect(loadMcpTools('/nonexistent/parley-mcp.json')).rejects.toMatchObject({
      code: 'mcp_config',
      message: expect.stringMatching(/^cannot read MCP config \/nonexistent\/parley-mcp\.json: /),
    });
  });
});
