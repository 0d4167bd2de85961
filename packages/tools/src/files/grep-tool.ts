import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import type { ToolContext, ToolOutput } from '@parley/core';
import { FileToolError } from '../errors.js';
import { textHoldsPrivateKey } from '../shared/secret-paths.js';
import { looksBinary } from './file-kind.js';
import { FileTool } from './file-tool.js';
import { GitignoreMatcher } from './gitignore.js';
import { leftOutNote, withoutSecrets } from './left-out.js';
import { statOrThrow } from './stat.js';

const MAX_MATCHES = 200;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_SHOWN_LINE = 300;

const grepInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('A JavaScript regular expression to search for, e.g. "function\\\\s+\\\\w+".'),
  path: z
    .string()
    .optional()
    .describe('A file or directory to search (default: the working directory).'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" (any depth) or "src/**/*.tsx".'),
  ignore_case: z.boolean().optional().describe('Match without regard to letter case.'),
});

/** The input of `Grep`. */
export type GrepInput = z.output<typeof grepInput>;

/**
 * Searches file contents with a regular expression, line by line. Walks the
 * directory with tinyglobby, skips `.git`, files excluded by `.gitignore`
 * (the `ignore` package), binary and very large files; stops after 200
 * matches with a note. Results are `path:line:text`, files in sorted order.
 * A directory search leaves out files that may hold secrets (by name, place
 * or private key header) and says how many.
 */
export class Grep extends FileTool<GrepInput> {
  readonly name = 'Grep';
  readonly description = [
    'Searches file contents for a regular expression (JavaScript syntax) and returns matching lines as path:line:text.',
    'Searches the working directory, or path (a file or directory); glob narrows the files ("*.ts", "src/**/*.tsx").',
    `Respects .gitignore and skips binary files. At most ${MAX_MATCHES} matches are returned.`,
  ].join(' ');
  readonly inputSchema = grepInput;
  readonly idempotent = true;
  protected readonly reads = true;
  protected readonly targetsDirectory = true;

  protected pathOf(input: GrepInput): string {
    return input.path ?? '.';
  }

  /** Runs the search. */
  async execute(input: GrepInput, context: ToolContext): Promise<ToolOutput> {
    const root = this.target(input).absolute;
    const regex = compile(input.pattern, input.ignore_case ?? false, root);
    const info = await statOrThrow(root);
    const walk = info.isDirectory();
    const { kept: files, leftOut: leftByName } = walk
      ? withoutSecrets(await listFiles(root, input.glob, context.signal), root)
      : { kept: [root], leftOut: 0 };
    const lines: string[] = [];
    let searched = 0;
    let truncated = false;
    let leftOut = leftByName;
    for (const file of files) {
      if (context.signal.aborted) break;
      const text = await readSearchable(file);
      if (text === undefined) continue;
      if (walk && textHoldsPrivateKey(text)) {
        leftOut++;
        continue;
      }
      searched++;
      truncated = collectMatches(file, text, regex, lines);
      if (truncated) break;
    }
    const metadata = { root, matches: lines.length, filesSearched: searched, truncated, leftOut };
    if (lines.length === 0) return { output: `No matches found.${leftOutNote(leftOut)}`, metadata };
    const note = truncated
      ? `\n(Stopped at ${MAX_MATCHES} matches; narrow the pattern, path or glob to see the rest.)`
      : '';
    return { output: lines.join('\n') + note + leftOutNote(leftOut), metadata };
  }
}

function compile(pattern: string, ignoreCase: boolean, root: string): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new FileToolError('invalid_pattern', root, `Invalid regular expression: ${reason}`);
  }
}

async function listFiles(
  root: string,
  filter: string | undefined,
  signal: AbortSignal,
): Promise<string[]> {
  if (filter !== undefined && (filter.startsWith('/') || filter.split('/').includes('..'))) {
    throw new FileToolError(
      'invalid_pattern',
      root,
      `glob must stay inside ${root}; use path to search elsewhere.`,
    );
  }
  const pattern = filter === undefined ? '**/*' : filter.includes('/') ? filter : `**/${filter}`;
  const found = await glob(pattern, {
    cwd: root,
    absolute: true,
    dot: true,
    onlyFiles: true,
    ignore: ['**/.git/**'],
    signal,
  });
  const gitignore = GitignoreMatcher.for(root);
  return found.filter((file) => !gitignore.ignores(file)).sort();
}

/** The file's text, or undefined for a binary, huge or unreadable file. */
async function readSearchable(file: string): Promise<string | undefined> {
  try {
    const info = await statOrThrow(file);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
    const bytes = await readFile(file);
    return looksBinary(bytes) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Appends `file:line:text` for each matching line; true when the match limit is reached. */
function collectMatches(file: string, text: string, regex: RegExp, into: string[]): boolean {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!regex.test(line)) continue;
    if (into.length >= MAX_MATCHES) return true;
    const shown = line.length > MAX_SHOWN_LINE ? `${line.slice(0, MAX_SHOWN_LINE)}…` : line;
    into.push(`${file}:${i + 1}:${shown}`);
  }
  return false;
}
