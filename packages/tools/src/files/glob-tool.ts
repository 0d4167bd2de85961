import path from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import type { ToolContext, ToolOutput } from '@parley/core';
import { FileToolError } from '../errors.js';
import { fileTarget } from '../shared/file-permissions.js';
import type { ReadPath } from '../shared/read-access.js';
import { FileTool } from './file-tool.js';
import { GitignoreMatcher } from './gitignore.js';
import { leftOutNote, withoutSecrets } from './left-out.js';
import { statOrThrow } from './stat.js';

const MAX_RESULTS = 200;

const globInput = z.object({
  pattern: z.string().min(1).describe('The glob to match, e.g. "**/*.ts" or "src/**/index.*".'),
  path: z
    .string()
    .optional()
    .describe('The directory to search in (default: the working directory).'),
});

/** The input of `Glob`. */
export type GlobInput = z.output<typeof globInput>;

/**
 * Finds files by glob pattern (tinyglobby), skipping `.git` and files the
 * repository's `.gitignore` files exclude. Paths come back absolute and
 * sorted; at most 200, with a note when there were more. Read-only; files
 * that may hold secrets are left out, with a note saying how many.
 */
export class Glob extends FileTool<GlobInput> {
  readonly name = 'Glob';
  readonly description = [
    'Finds files whose path matches a glob pattern ("**/*.ts", "src/**/*.test.ts").',
    'Returns absolute paths, sorted, skipping files ignored by .gitignore.',
    'Use it to find files by name; use Grep to search their content.',
  ].join(' ');
  readonly inputSchema = globInput;
  readonly idempotent = true;
  protected readonly reads = true;
  protected readonly targetsDirectory = true;

  /**
   * The directory the search can reach: `path`, narrowed by the literal start
   * of the pattern, so rules see `/etc` for the pattern `/etc/**` or `../x/*`.
   */
  protected pathOf(input: GlobInput): string {
    const base = input.path ?? '.';
    const firstGlob = input.pattern.search(/[*?[{]/);
    const literal = firstGlob === -1 ? input.pattern : input.pattern.slice(0, firstGlob);
    const directory = literal.slice(0, literal.lastIndexOf('/') + 1);
    return directory === '' ? base : path.resolve(this.cwd, base, directory);
  }

  /** A pattern that climbs with `..` after its first glob character can reach anywhere. */
  protected override readPath(input: GlobInput): ReadPath | undefined {
    const firstGlob = input.pattern.search(/[*?[{]/);
    const rest = firstGlob === -1 ? '' : input.pattern.slice(firstGlob);
    if (rest.split('/').includes('..')) return undefined;
    return super.readPath(input);
  }

  /** Lists the matching files. */
  async execute(input: GlobInput, context: ToolContext): Promise<ToolOutput> {
    const root = fileTarget(this.cwd, input.path ?? '.').absolute;
    if (!(await statOrThrow(root)).isDirectory()) {
      throw new FileToolError('not_a_directory', root, `${root} is not a directory.`);
    }
    const gitignore = GitignoreMatcher.for(root);
    const found = await glob(input.pattern, {
      cwd: root,
      absolute: true,
      dot: true,
      onlyFiles: true,
      ignore: ['**/.git/**'],
      signal: context.signal,
    });
    const { kept: files, leftOut } = withoutSecrets(
      found.filter((file) => !gitignore.ignores(file)).sort(),
      root,
    );
    const shown = files.slice(0, MAX_RESULTS);
    const metadata = {
      root,
      count: files.length,
      truncated: files.length > shown.length,
      leftOut,
    };
    if (files.length === 0) return { output: `No files found.${leftOutNote(leftOut)}`, metadata };
    const note =
      files.length > shown.length
        ? `\n(Showing ${shown.length} of ${files.length} files; use a narrower pattern or path.)`
        : '';
    return { output: shown.join('\n') + note + leftOutNote(leftOut), metadata };
  }
}
