import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolOutput } from '@parley/core';
import { FileToolError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { looksBinary } from './file-kind.js';
import { FileTool } from './file-tool.js';
import { statOrThrow } from './stat.js';

const SNIPPET_CONTEXT_LINES = 3;

const editInput = z.object({
  file_path: z
    .string()
    .min(1)
    .describe(
      'Absolute path of the file to change (a relative path is read from the working directory).',
    ),
  old_string: z
    .string()
    .min(1)
    .describe('The exact text to replace, including whitespace and indentation.'),
  new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence. Without it old_string must occur exactly once.'),
});

/** The input of `Edit`. */
export type EditInput = z.output<typeof editInput>;

/**
 * Replaces an exact string in a file. Fails clearly when the string is
 * missing, or occurs more than once without `replace_all`; writes atomically.
 */
export class Edit extends FileTool<EditInput> {
  readonly name = 'Edit';
  readonly description = [
    'Replaces exact text in a file.',
    'old_string must match the file exactly (whitespace and indentation included) and occur once;',
    'give more surrounding lines to make it unique, or set replace_all to change every occurrence.',
    'Read the file first. Use an absolute file_path.',
  ].join(' ');
  readonly inputSchema = editInput;
  readonly idempotent = false;
  protected readonly reads = false;
  protected readonly targetsDirectory = false;

  protected pathOf(input: EditInput): string {
    return input.file_path;
  }

  /** Applies the replacement and writes the file atomically. */
  async execute(input: EditInput): Promise<ToolOutput> {
    const file = this.target(input).absolute;
    const info = await statOrThrow(file);
    if (!info.isFile()) throw new FileToolError('not_a_file', file, `${file} is not a file.`);
    const bytes = await readFile(file);
    if (looksBinary(bytes)) {
      throw new FileToolError(
        'binary_file',
        file,
        `${file} is a binary file and cannot be edited.`,
      );
    }
    const content = bytes.toString('utf8');
    if (input.old_string === input.new_string) {
      throw new FileToolError(
        'no_change',
        file,
        'old_string and new_string are the same; nothing to change.',
      );
    }
    const count = countOccurrences(content, input.old_string);
    if (count === 0) {
      throw new FileToolError(
        'string_not_found',
        file,
        `old_string was not found in ${file}. It must match the file exactly, including whitespace and indentation; read the file again and copy the text.`,
      );
    }
    const replaceAll = input.replace_all ?? false;
    if (count > 1 && !replaceAll) {
      throw new FileToolError(
        'string_not_unique',
        file,
        `old_string occurs ${count} times in ${file}. Give more surrounding lines to make it unique, or set replace_all to replace every occurrence.`,
      );
    }
    const first = content.indexOf(input.old_string);
    const updated = replaceAll
      ? content.split(input.old_string).join(input.new_string)
      : content.slice(0, first) + input.new_string + content.slice(first + input.old_string.length);
    await writeFileAtomic(file, updated);
    const plural = count === 1 ? 'occurrence' : 'occurrences';
    return {
      output: `Edited ${file}: replaced ${count} ${plural}.\n${snippet(updated, first, input.new_string)}`,
      metadata: { path: file, replacements: count },
    };
  }
}

function countOccurrences(content: string, needle: string): number {
  let count = 0;
  for (
    let at = content.indexOf(needle);
    at !== -1;
    at = content.indexOf(needle, at + needle.length)
  ) {
    count++;
  }
  return count;
}

/** The first changed region with a few lines around it, numbered like `Read`. */
function snippet(content: string, start: number, inserted: string): string {
  const lines = content.split('\n');
  const firstLine = content.slice(0, start).split('\n').length;
  const lastLine = firstLine + inserted.split('\n').length - 1;
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, lastLine + SNIPPET_CONTEXT_LINES);
  return lines
    .slice(from - 1, to)
    .map((line, i) => `${String(from + i).padStart(6)}\t${line}`)
    .join('\n');
}
