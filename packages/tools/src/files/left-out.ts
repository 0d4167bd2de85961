import { isInside, realPath } from '../shared/paths.js';
import { isSecretPath } from '../shared/secret-paths.js';

/** The files a directory walk may show, and how many it left out. */
export type Kept = { kept: string[]; leftOut: number };

/**
 * Leaves out of a directory walk (Glob, Grep) the files that may hold
 * secrets, by name or place, and the files a symlink leads out of the
 * searched tree to: the tools say how many they left out instead of asking,
 * so a search over a project with a `.env` still works (ADR tools-0006).
 */
export function withoutSecrets(files: readonly string[], root: string): Kept {
  const realRoot = realPath(root);
  const kept: string[] = [];
  let leftOut = 0;
  for (const file of files) {
    const real = realPath(file);
    if (isSecretPath(file) || isSecretPath(real) || !isInside(realRoot, real)) leftOut++;
    else kept.push(file);
  }
  return { kept, leftOut };
}

/** The note a walk's result ends with when it left files out; empty when it did not. */
export function leftOutNote(leftOut: number): string {
  if (leftOut === 0) return '';
  const files = leftOut === 1 ? '1 file was' : `${leftOut} files were`;
  return `\n(${files} left out: they may hold secrets, or a symlink leads outside the searched directory. Read asks before reading one.)`;
}
