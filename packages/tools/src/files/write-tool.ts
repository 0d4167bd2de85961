import { z } from 'zod';
import type { ToolOutput } from '@parley/core';
import { writeFileAtomic } from './atomic-write.js';
import { FileTool } from './file-tool.js';

const writeInput = z.object({
  file_path: z
    .string()
    .min(1)
    .describe(
      'Absolute path of the file to write (a relative path is read from the working directory).',
    ),
  content: z.string().describe('The whole new content of the file.'),
});

/** The input of `Write`. */
export type WriteInput = z.output<typeof writeInput>;

/**
 * Creates or replaces a file. Parent directories are created; the write is
 * atomic (temporary file, then rename), so a crash never leaves half a file.
 * Asks unless a rule or an edit mode allows the path; dangerous files
 * (`.bashrc`, `.git/…`) always ask.
 */
export class Write extends FileTool<WriteInput> {
  readonly name = 'Write';
  readonly description = [
    'Writes a file to the local file system, replacing it if it exists.',
    'Creates missing parent directories. Use an absolute file_path.',
    'Prefer Edit for changing part of an existing file; read a file before replacing it.',
  ].join(' ');
  readonly inputSchema = writeInput;
  readonly idempotent = true;
  protected readonly reads = false;
  protected readonly targetsDirectory = false;

  protected pathOf(input: WriteInput): string {
    return input.file_path;
  }

  /** Writes the file atomically. */
  async execute(input: WriteInput): Promise<ToolOutput> {
    const file = this.target(input).absolute;
    const result = await writeFileAtomic(file, input.content);
    return {
      output: `${result.created ? 'Created' : 'Updated'} ${file} (${result.bytes} bytes).`,
      metadata: { path: file, bytes: result.bytes, created: result.created },
    };
  }
}
