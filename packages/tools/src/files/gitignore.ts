import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import type { Ignore } from 'ignore';
import { isInside } from '../shared/paths.js';

/**
 * Answers "would git ignore this file?" the way git does: every `.gitignore`
 * from the repository root down to the file's directory applies, each to
 * paths relative to its own directory, deeper files may re-include (`!x`),
 * and nothing inside an ignored directory can be re-included. Rules are the
 * `ignore` package's; files are read lazily, once per directory.
 */
export class GitignoreMatcher {
  private readonly rules = new Map<string, Ignore | null>();
  private readonly ignoredDirectories = new Map<string, boolean>();

  private constructor(private readonly top: string) {}

  /** A matcher for files under `root`, rooted at the enclosing repository (or `root`). */
  static for(root: string): GitignoreMatcher {
    let current = root;
    for (;;) {
      if (existsSync(path.join(current, '.git'))) return new GitignoreMatcher(current);
      const parent = path.dirname(current);
      if (parent === current) return new GitignoreMatcher(root);
      current = parent;
    }
  }

  /** Whether git would ignore the file at this absolute path. */
  ignores(file: string): boolean {
    if (!isInside(this.top, file) || file === this.top) return false;
    if (this.directoryIgnored(path.dirname(file))) return true;
    return this.test(file, false);
  }

  private directoryIgnored(directory: string): boolean {
    if (directory === this.top || !isInside(this.top, directory)) return false;
    const known = this.ignoredDirectories.get(directory);
    if (known !== undefined) return known;
    const ignored =
      path.basename(directory) === '.git' ||
      this.directoryIgnored(path.dirname(directory)) ||
      this.test(directory, true);
    this.ignoredDirectories.set(directory, ignored);
    return ignored;
  }

  /** Applies the `.gitignore` files from the top down to the parent of `target`. */
  private test(target: string, isDirectory: boolean): boolean {
    let ignored = false;
    const parent = path.dirname(target);
    const chain: string[] = [];
    for (let dir = parent; isInside(this.top, dir); dir = path.dirname(dir)) {
      chain.unshift(dir);
      if (dir === this.top) break;
    }
    for (const directory of chain) {
      const rules = this.load(directory);
      if (rules === null) continue;
      const relative = path.relative(directory, target).split(path.sep).join('/');
      const result = rules.test(isDirectory ? `${relative}/` : relative);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private load(directory: string): Ignore | null {
    const cached = this.rules.get(directory);
    if (cached !== undefined) return cached;
    const rules = readRules(path.join(directory, '.gitignore'));
    this.rules.set(directory, rules);
    return rules;
  }
}

function readRules(file: string): Ignore | null {
  try {
    return ignore().add(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
