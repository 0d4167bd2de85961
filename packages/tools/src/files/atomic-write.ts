import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { realPath } from '../shared/paths.js';

/** The outcome of an atomic write. */
export type AtomicWriteResult = { path: string; bytes: number; created: boolean };

/**
 * Writes `content` to `target` so that readers see the old file or the new
 * one, never a half-written one: parent directories are created, the bytes
 * go to a temporary file beside the target, which is then renamed over it.
 * A symlink is followed (its target is replaced, not the link), and an
 * existing file keeps its permission bits.
 */
export async function writeFileAtomic(target: string, content: string): Promise<AtomicWriteResult> {
  const real = realPath(target);
  const directory = path.dirname(real);
  await mkdir(directory, { recursive: true });
  const existing = await stat(real).catch(() => undefined);
  const temporary = path.join(
    directory,
    `.${path.basename(real)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temporary, content, { flag: 'wx' });
    if (existing !== undefined) await chmod(temporary, existing.mode & 0o7777);
    await rename(temporary, real);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { path: real, bytes: Buffer.byteLength(content), created: existing === undefined };
}
