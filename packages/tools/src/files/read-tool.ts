import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { ToolOutput, ToolResponse } from '@parley/core';
import { FileToolError } from '../errors.js';
import { imageMediaType, looksBinary, SNIFF_BYTES } from './file-kind.js';
import { FileTool } from './file-tool.js';
import { statOrThrow } from './stat.js';

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Up to this size the whole file is scanned, so the footer can give the line count. */
const COUNT_ALL_BYTES = 16 * 1024 * 1024;

const readInput = z.object({
  file_path: z
    .string()
    .min(1)
    .describe(
      'Absolute path of the file to read (a relative path is read from the working directory).',
    ),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('The line number to start reading from (1-based). Use it with limit for long files.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to read (default ${DEFAULT_LIMIT}).`),
});

/** The input of `Read`. */
export type ReadInput = z.output<typeof readInput>;

/**
 * Reads a file. Text comes back with numbered lines (`cat -n` style) from
 * `offset`, at most `limit` lines; an image comes back as a data block; other
 * binary files are refused with a clear message. Read-only: allowed in every mode.
 */
export class Read extends FileTool<ReadInput> {
  readonly name = 'Read';
  readonly description = [
    'Reads a file from the local file system.',
    `Text files come back with line numbers, ${DEFAULT_LIMIT} lines at most per call; use offset and limit to read a long file in parts.`,
    'Images (PNG, JPEG, GIF, WebP, BMP) come back as images. Other binary files cannot be read.',
    'Use an absolute file_path. To list a directory, use Glob or Bash ls.',
  ].join(' ');
  readonly inputSchema = readInput;
  readonly idempotent = true;
  protected readonly reads = true;
  protected readonly targetsDirectory = false;

  protected pathOf(input: ReadInput): string {
    return input.file_path;
  }

  /** Reads the file as numbered text or an image block. */
  async execute(input: ReadInput): Promise<ToolOutput> {
    const file = this.target(input).absolute;
    const info = await statOrThrow(file);
    if (info.isDirectory()) {
      throw new FileToolError(
        'not_a_file',
        file,
        `${file} is a directory, not a file. Use Glob or Bash ls to list it.`,
      );
    }
    const head = await readHead(file);
    const mediaType = imageMediaType(head);
    if (mediaType !== undefined) return readImage(file, mediaType, info.size);
    if (looksBinary(head)) {
      throw new FileToolError(
        'binary_file',
        file,
        `${file} is a binary file (${info.size} bytes) and cannot be shown as text.`,
      );
    }
    return readText(file, input.offset ?? 1, input.limit ?? DEFAULT_LIMIT, info.size);
  }
}

async function readHead(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function readImage(file: string, mediaType: string, size: number): Promise<ToolResponse> {
  if (size > MAX_IMAGE_BYTES) {
    throw new FileToolError(
      'file_too_large',
      file,
      `${file} is an image of ${size} bytes; images over ${MAX_IMAGE_BYTES} bytes are not read.`,
    );
  }
  const data = (await readFile(file)).toString('base64');
  return {
    output: [
      { type: 'text', text: `Image ${file} (${mediaType}, ${size} bytes)` },
      { type: 'data', name: path.basename(file), source: { type: 'base64', data, mediaType } },
    ],
    metadata: { path: file, mediaType, bytes: size },
  };
}

async function readText(
  file: string,
  offset: number,
  limit: number,
  size: number,
): Promise<ToolResponse> {
  const lines: string[] = [];
  let total = 0;
  let more = false;
  const countAll = size <= COUNT_ALL_BYTES;
  const stream = createReadStream(file, { encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of reader) {
    total++;
    if (total >= offset && total < offset + limit) lines.push(numbered(total, line));
    else if (total >= offset + limit && !countAll) {
      more = true;
      break;
    }
  }
  reader.close();
  stream.destroy();
  const metadata = {
    path: file,
    totalLines: more ? null : total,
    startLine: offset,
    lines: lines.length,
  };
  if (total === 0) return { output: `(${file} is empty.)`, metadata };
  if (lines.length === 0) {
    return {
      output: `(${file} has ${total} lines; offset ${offset} is past the end.)`,
      metadata,
    };
  }
  const last = offset + lines.length - 1;
  const of = more ? '; the file goes on' : ` of ${total}`;
  const footer =
    offset > 1 || last < total || more
      ? `\n(Showing lines ${offset}-${last}${of}. Use offset and limit to read more.)`
      : '';
  return { output: lines.join('\n') + footer, metadata };
}

function numbered(lineNumber: number, line: string): string {
  const shown =
    line.length > MAX_LINE_CHARS
      ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length - MAX_LINE_CHARS} more characters]`
      : line;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}
