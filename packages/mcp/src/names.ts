import { createHash } from 'node:crypto';

/**
 * The longest tool name model APIs accept: the length in core's
 * `TOOL_NAME_PATTERN`, which every name made here matches.
 */
export const MAX_TOOL_NAME_CHARS = 64;

/**
 * The longest server name: `mcp__<server>__` must leave room for a
 * shortened tool part (a few characters, `_` and an 8-digit hash).
 */
export const MAX_SERVER_NAME_CHARS = 40;

const HASH_CHARS = 8;

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);
}

/**
 * The Parley name of an MCP tool: `mcp__<server>__<tool>`, other characters
 * of the tool's name as `_`. A name longer than 64 characters (or a tool
 * with an empty name) keeps as much of the tool's name as fits and ends in
 * `_` and a hash of the tool's real name: the same tool always gets the same
 * name, and two tools get the same one only if the hash collides (which
 * `McpConnections` reports as a collision). The server part is kept whole,
 * so `mcp__<server>__*` rules still cover it.
 */
export function mcpToolName(server: string, tool: string): string {
  const prefix = `mcp__${server}__`;
  const clean = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const full = `${prefix}${clean}`;
  if (clean !== '' && full.length <= MAX_TOOL_NAME_CHARS) return full;
  const room = Math.max(0, MAX_TOOL_NAME_CHARS - prefix.length - HASH_CHARS - 1);
  return `${prefix}${clean.slice(0, room)}_${hashOf(tool)}`;
}
