import { assertNever } from '@parley/core';
import type { AnyTool } from '@parley/core';

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

/**
 * Builds the chosen built-in tools, each working in `cwd`. The package (and
 * its bash parser) loads only when some tool is chosen, so the demo starts
 * without it.
 */
export async function createTools(
  names: readonly BuiltInToolName[],
  cwd: string,
): Promise<AnyTool[]> {
  if (names.length === 0) return [];
  const { Bash, Edit, Glob, Grep, Read, Write } = await import('@parley/tools');
  const make = (name: BuiltInToolName): AnyTool => {
    switch (name) {
      case 'Bash':
        return new Bash({ cwd });
      case 'Read':
        return new Read({ cwd });
      case 'Write':
        return new Write({ cwd });
      case 'Edit':
        return new Edit({ cwd });
      case 'Glob':
        return new Glob({ cwd });
      case 'Grep':
        return new Grep({ cwd });
      default:
        return assertNever(name, 'built-in tool');
    }
  };
  return names.map(make);
}

/**
 * The sandbox the Bash tool among `tools` runs commands in (`bubblewrap`,
 * or `none` when commands run bare), for banners and `/healthz`;
 * undefined without Bash.
 */
export async function sandboxOf(
  tools: readonly AnyTool[],
): Promise<'bubblewrap' | 'none' | undefined> {
  const { Bash } = await import('@parley/tools');
  const bash = tools.find((tool) => tool instanceof Bash);
  return bash instanceof Bash ? bash.sandboxKind : undefined;
}
