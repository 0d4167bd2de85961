import type { AnyTool } from '@parley/core';
import { importOptional, isConstructor, isRecord } from './optional-import.js';

/**
 * The built-in tools `--tools` chooses from and how they are built. They
 * live in `@parley/tools` (`new Bash({ cwd })`, …); this is the one module
 * that reaches them, so a change there is a change here only.
 */

/** The built-in system tools, in the order they are listed. */
export const builtInToolNames = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep'] as const;

/** One built-in tool name. */
export type BuiltInToolName = (typeof builtInToolNames)[number];

/** A `--tools` value that names no known tool. */
export class ToolListError extends Error {
  override name = 'ToolListError';
}

function isBuiltIn(name: string): name is BuiltInToolName {
  return builtInToolNames.some((known) => known === name);
}

/**
 * Parses `--tools`: `all`, `none`, or a comma list of built-in names
 * (any case), e.g. `read,glob,grep`.
 */
export function parseToolList(text: string): BuiltInToolName[] {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'all') return [...builtInToolNames];
  if (trimmed === 'none' || trimmed === '') return [];
  const names: BuiltInToolName[] = [];
  for (const part of trimmed.split(',')) {
    const wanted = part.trim();
    if (wanted === '') continue;
    const name = builtInToolNames.find((known) => known.toLowerCase() === wanted);
    if (name === undefined) {
      throw new ToolListError(
        `--tools: unknown tool ${JSON.stringify(part.trim())}; choose from ${builtInToolNames.join(', ')}, or all / none.`,
      );
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Keeps the stored names that are built-in tools (a session file is input too). */
export function knownToolNames(names: readonly string[]): BuiltInToolName[] {
  return names.filter(isBuiltIn);
}

function isTool(value: unknown): value is AnyTool {
  if (!isRecord(value)) return false;
  const methods = [
    'jsonSchema',
    'isReadOnly',
    'isConcurrencySafe',
    'checkPermissions',
    'matchRule',
    'suggestRules',
  ];
  return (
    typeof value['name'] === 'string' &&
    typeof value['description'] === 'string' &&
    typeof value['external'] === 'boolean' &&
    isRecord(value['inputSchema']) &&
    methods.every((method) => typeof value[method] === 'function')
  );
}

/** The built tools, and the names this build could not provide. */
export type ToolSet = { tools: AnyTool[]; unavailable: BuiltInToolName[] };

/** Builds the chosen built-in tools, each working in `cwd`. */
export async function createToolSet(
  names: readonly BuiltInToolName[],
  cwd: string,
): Promise<ToolSet> {
  if (names.length === 0) return { tools: [], unavailable: [] };
  const loaded = await importOptional('@parley/tools');
  const tools: AnyTool[] = [];
  const unavailable: BuiltInToolName[] = [];
  for (const name of names) {
    const Tool = loaded?.[name];
    const built: unknown = isConstructor(Tool) ? new Tool({ cwd }) : undefined;
    if (isTool(built)) tools.push(built);
    else unavailable.push(name);
  }
  return { tools, unavailable };
}
