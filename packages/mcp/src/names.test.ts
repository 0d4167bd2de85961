import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '@parley/core';
import { mcpToolName } from './names.js';

describe('mcpToolName: names model APIs accept', () => {
  it('keeps plain names, cleans other characters', () => {
    expect(mcpToolName('fs', 'read_file')).toBe('mcp__fs__read_file');
    expect(mcpToolName('fs', 'do.it')).toBe('mcp__fs__do_it');
    expect(mcpToolName('fs', 'über/tool')).toBe('mcp__fs___ber_tool');
  });

  it('shortens long names to 64 characters with a hash of the real name, deterministically', () => {
    const long = `create_${'very_'.repeat(20)}long_tool`;
    const name = mcpToolName('github', long);
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name).toHaveLength(64);
    expect(name.startsWith('mcp__github__create_very_')).toBe(true);
    expect(name).toMatch(/_[0-9a-f]{8}$/);
    expect(mcpToolName('github', long)).toBe(name);
    // Two names that differ only past the cut get different names.
    expect(mcpToolName('github', `${long}_2`)).not.toBe(name);
  });

  it('the longest server name still leaves room; an empty tool name gets a hash', () => {
    const server = 's'.repeat(40);
    const name = mcpToolName(server, 'x'.repeat(100));
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name.startsWith(`mcp__${server}__xxxxxxxx_`)).toBe(true);
    expect(mcpToolName('a', '')).toMatch(/^mcp__a___[0-9a-f]{8}$/);
  });
});
