import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { PermissionContext } from '@parley/core';

/**
 * The absolute, normalized form of a path given to a tool: `~` and `~/…`
 * expand to the home directory, relative paths resolve against `cwd`, and
 * `.`/`..` segments are folded away (lexically; symlinks are not followed).
 */
export function absolutePath(cwd: string, input: string, home = homedir()): string {
  if (input === '~') return home;
  if (input.startsWith('~/')) return path.resolve(home, input.slice(2));
  return path.resolve(cwd, input);
}

/**
 * The path with every symlink resolved, for a file that may not exist yet:
 * the nearest existing ancestor is resolved with `realpath` and the missing
 * rest is appended. So `link/../x` or a symlinked directory cannot make a
 * path look as if it were somewhere it is not.
 */
export function realPath(absolute: string): string {
  const missing: string[] = [];
  let current = path.normalize(absolute);
  for (;;) {
    try {
      const resolved = realpathSync.native(current);
      return missing.length === 0 ? resolved : path.join(resolved, ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.join(current, ...missing.reverse());
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Whether `candidate` is `directory` itself or lies below it (both absolute and normalized). */
export function isInside(directory: string, candidate: string): boolean {
  if (candidate === directory) return true;
  const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
  return candidate.startsWith(prefix);
}

/**
 * The directories a tool may edit in without asking in `accept_edits` and
 * `dont_ask` mode: the context's working directories plus the tool's own
 * cwd (SPEC section 6: "the process cwd counts"), symlinks resolved.
 */
export function workingDirectories(context: PermissionContext, cwd: string): string[] {
  const all = [cwd, ...context.workingDirectories].map((dir) => realPath(path.resolve(cwd, dir)));
  return [...new Set(all)];
}

/** Whether the (real) path lies inside one of the working directories. */
export function isInWorkingDirectory(directories: readonly string[], real: string): boolean {
  return directories.some((dir) => isInside(dir, real));
}
