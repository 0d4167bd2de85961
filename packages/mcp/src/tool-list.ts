import type { Tool as McpToolDefinition } from '@modelcontextprotocol/client';
import { SchemaCompiler } from './json-schema.js';
import type { CompiledSchema, JsonObject } from './json-schema.js';
import { mcpToolName } from './names.js';

/** The longest tool description passed on to the model (characters); longer ones are trimmed. */
export const MAX_DESCRIPTION_CHARS = 8 * 1024;
/** The largest input schema a tool may have (characters of JSON); a tool with a larger one is left out. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

/** One tool of a server as Parley offers it: its name, its (capped) definition and its compiled schema. */
export type McpToolEntry = {
  /** The Parley name, `mcp__<server>__<tool>` (cleaned, shortened when long). */
  name: string;
  /** The server's definition, the description trimmed to `MAX_DESCRIPTION_CHARS`. */
  definition: McpToolDefinition;
  /** The input schema, compiled once for this listing. */
  schema: CompiledSchema;
};

/** A tool of a server that Parley left out or cannot call, and why (shown to the person). */
export type McpToolProblem = { server: string; tool: string; reason: string };

/** A server's listing as Parley offers it: entries by the tool's name on the server, and the problems. */
export type McpToolListing = { entries: Map<string, McpToolEntry>; problems: McpToolProblem[] };

/** The size of a schema as JSON, or undefined when it cannot be written (too deep). */
function jsonLength(value: unknown): number | undefined {
  try {
    return JSON.stringify(value).length;
  } catch {
    return undefined;
  }
}

function capped(definition: McpToolDefinition, problems: McpToolProblem[], server: string) {
  const description = definition.description;
  if (description === undefined || description.length <= MAX_DESCRIPTION_CHARS) return definition;
  problems.push({
    server,
    tool: definition.name,
    reason: `description of ${description.length} characters trimmed to ${MAX_DESCRIPTION_CHARS}`,
  });
  return {
    ...definition,
    description: `${description.slice(0, MAX_DESCRIPTION_CHARS)} [description trimmed]`,
  };
}

/**
 * Reads a server's tool list as untrusted input: trims long descriptions,
 * leaves out tools whose schema is too large, compiles each schema once
 * (one that cannot be compiled keeps the tool, whose calls then fail with
 * the reason), and leaves out every tool whose Parley name another tool of
 * the server also gets (`do.it` and `do_it`): neither is offered, both are
 * reported. Never throws.
 */
export function readToolList(server: string, tools: McpToolDefinition[]): McpToolListing {
  const problems: McpToolProblem[] = [];
  const compiler = new SchemaCompiler();
  const byParleyName = new Map<string, McpToolEntry[]>();
  const seen = new Set<string>();
  for (const listed of tools) {
    if (seen.has(listed.name)) {
      problems.push({ server, tool: listed.name, reason: 'listed twice; the first is kept' });
      continue;
    }
    seen.add(listed.name);
    const size = jsonLength(listed.inputSchema);
    if (size === undefined || size > MAX_SCHEMA_CHARS) {
      problems.push({
        server,
        tool: listed.name,
        reason:
          size === undefined
            ? 'left out: its input schema cannot be written as JSON'
            : `left out: its input schema has ${size} characters (at most ${MAX_SCHEMA_CHARS})`,
      });
      continue;
    }
    const definition = capped(listed, problems, server);
    const inputSchema: JsonObject = { ...definition.inputSchema };
    const schema = compiler.compile(inputSchema);
    if (!schema.usable) {
      problems.push({ server, tool: listed.name, reason: `unavailable: its ${schema.reason}` });
    }
    const name = mcpToolName(server, listed.name);
    const entry: McpToolEntry = { name, definition, schema };
    byParleyName.set(name, [...(byParleyName.get(name) ?? []), entry]);
  }
  const entries = new Map<string, McpToolEntry>();
  for (const [name, sharing] of byParleyName) {
    const [only, ...others] = sharing;
    if (only !== undefined && others.length === 0) {
      entries.set(only.definition.name, only);
      continue;
    }
    const names = sharing.map((entry) => JSON.stringify(entry.definition.name)).join(', ');
    for (const entry of sharing) {
      problems.push({
        server,
        tool: entry.definition.name,
        reason: `left out: tools ${names} would all be named ${name}`,
      });
    }
  }
  return { entries, problems };
}
