import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { FileToolError } from '../errors.js';

/** `stat`, with a missing path turned into a `FileToolError` the model can act on. */
export async function statOrThrow(file: string): Promise<Stats> {
  try {
    return await stat(file);
  } catch (error) {
    if (isErrorWithCode(error, 'ENOENT') || isErrorWithCode(error, 'ENOTDIR')) {
      throw new FileToolError('file_not_found', file, `${file} does not exist.`);
    }
    throw error;
  }
}

/** Whether `error` is a Node system error with that `code`. */
export function isErrorWithCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
