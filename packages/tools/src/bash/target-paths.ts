import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { globSync } from 'tinyglobby';
import {
  dangerousPathReason,
  globMayMatchDangerousName,
  isDeviceWrite,
} from '../shared/dangerous-paths.js';
import { absolutePath, isInWorkingDirectory, realPath } from '../shared/paths.js';
import type { CommandAnalysis, Target } from './analysis.js';
import type { Word } from './syntax.js';

/** A target path, as written (absolute) and with symlinks resolved. */
export type ResolvedPath = { absolute: string; real: string };

/**
 * A target with every path it may stand for; `paths` undefined when that
 * cannot be known. `throughProcess`: the path or a `cd` before it goes
 * through `/proc` or `/dev/fd`, which name the shell's process, not ours.
 */
export type ResolvedTarget = {
  target: Target;
  paths: ResolvedPath[] | undefined;
  throughProcess: boolean;
};

/** Where a command runs and whose home `~` is. */
export type ShellLocation = { cwd: string; home: string };

const MAX_DIRECTORIES = 32;
/** The shell's own output streams: writing there writes no file. */
const STANDARD_OUTPUT = /^\/dev\/(stdout|stderr|fd\/[12])$/;
const MAX_GLOB_MATCHES = 500;

/**
 * Resolves every target of the line to the paths it may stand for. A
 * relative path is taken against every directory the line may have `cd`-ed
 * into before it (the start directory included, since a failed `cd` leaves it
 * there), so a `cd` cannot make an outside path look inside. A glob is
 * expanded against the file system now; no match stands for the literal name.
 */
export function resolveTargets(
  analysis: CommandAnalysis,
  location: ShellLocation,
): ResolvedTarget[] {
  const directories = possibleDirectories(analysis.directories, location);
  return analysis.targets.map((target) => {
    const paths = resolveTarget(target, directories[target.cdIndex], location);
    // A written path through /proc or /dev/fd is one only the running shell can resolve.
    const process =
      throughProcess(target, analysis.directories, location.cwd) ||
      (!STANDARD_OUTPUT.test(target.word.value) &&
        // Only a path with a symlink on it resolves elsewhere: walk just those.
        (paths ?? []).some(
          (item) => item.real !== item.absolute && linksIntoProcess(item.absolute),
        ));
    return { target, paths: process ? undefined : paths, throughProcess: process };
  });
}

const MAX_LINK_HOPS = 8;

/**
 * Whether an existing symlink on the path leads through `/proc` or `/dev/fd`
 * (a link in the project to `/proc/self/cwd`): our `realpath` would resolve
 * it in this process, the shell in its own.
 */
function linksIntoProcess(absolute: string, hops = 0): boolean {
  if (hops > MAX_LINK_HOPS) return true;
  const segments = absolute.split('/').filter((segment) => segment !== '');
  let current = '/';
  for (const [index, segment] of segments.entries()) {
    const next = path.posix.join(current, segment);
    let link: string | undefined;
    try {
      link = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      return false;
    }
    if (link !== undefined) {
      if (reachesProcess(current, link)) return true;
      const rest = segments.slice(index + 1);
      return linksIntoProcess(
        path.posix.join(path.posix.resolve(current, link), ...rest),
        hops + 1,
      );
    }
    current = next;
  }
  return false;
}

/** Whether the target, or a `cd` before it, goes through `/proc` or `/dev/fd` (see `reachesProcess`). */
function throughProcess(
  target: Target,
  changes: readonly (string | undefined)[],
  cwd: string,
): boolean {
  const word = target.word;
  if (word.dynamic || STANDARD_OUTPUT.test(word.value)) return false;
  return [word.value, ...changes.slice(0, target.cdIndex).flatMap((change) => change ?? [])].some(
    (value) => reachesProcess(cwd, value),
  );
}

/**
 * Resolves other words of the line (the paths it reads) the way targets are
 * resolved: after the `cd`s before them, `~`, globs and symlinks; `paths`
 * undefined when they cannot be known.
 */
export function resolveWords<Item extends { word: Word; cdIndex: number }>(
  items: readonly Item[],
  analysis: CommandAnalysis,
  location: ShellLocation,
): { item: Item; paths: ResolvedPath[] | undefined }[] {
  const directories = possibleDirectories(analysis.directories, location);
  return items.map((item) => ({
    item,
    paths: resolveTarget(item, directories[item.cdIndex], location),
  }));
}

/** Reasons a resolved target is a safety ask: dangerous files, devices, critical removals. */
export function targetSafety(
  resolved: readonly ResolvedTarget[],
  workingDirectories: readonly string[],
  home: string,
): string[] {
  const reasons: string[] = [];
  for (const { target, paths, throughProcess } of resolved) {
    const word = target.word;
    if (throughProcess)
      reasons.push(
        `${word.value} goes through /proc or /dev/fd, which only the running shell can resolve`,
      );
    if (word.glob && !word.dynamic) {
      const pattern = path.posix.basename(word.value);
      if (
        pattern.startsWith('.') &&
        globMayMatchDangerousName((name) => segmentGlobMatches(pattern, name))
      ) {
        reasons.push(`${word.value} may expand to a sensitive file`);
      }
    }
    if (target.forced === true && (paths === undefined || target.contents === true))
      reasons.push(`rm -rf of ${word.text || 'paths'} that are known only when it runs`);
    for (const { absolute, real } of paths ?? []) {
      if (target.forced === true && !isInWorkingDirectory(workingDirectories, real))
        reasons.push(`rm -rf of ${real}, outside the working directories`);
      const danger = dangerousPathReason(absolute) ?? dangerousPathReason(real);
      if (danger !== undefined) reasons.push(danger);
      if (isDeviceWrite(absolute) || isDeviceWrite(real))
        reasons.push(`writes to the device ${absolute}`);
      if (target.kind === 'remove')
        reasons.push(...criticalRemoval(absolute, real, target, workingDirectories, home));
    }
  }
  return [...new Set(reasons)];
}

function criticalRemoval(
  absolute: string,
  real: string,
  target: Target,
  workingDirectories: readonly string[],
  home: string,
): string[] {
  for (const candidate of [absolute, real]) {
    if (candidate === '/' || candidate === home || path.dirname(candidate) === '/')
      return [`removal of ${candidate}`];
    if (!target.contents && workingDirectories.includes(candidate))
      return [`removal of the working directory ${candidate}`];
  }
  const word = target.word;
  if (word.glob && /^(\*|\.\*|\*\.\*|\*\*)$/.test(path.posix.basename(word.value))) {
    const directory = path.dirname(absolute);
    if (
      word.value === '*' ||
      directory === '/' ||
      directory === home ||
      workingDirectories.includes(directory)
    ) {
      return [`removal of everything matching ${word.value}`];
    }
  }
  return [];
}

/** The directories each target may be resolved against, indexed by how many `cd`s came before it. */
function possibleDirectories(
  changes: readonly (string | undefined)[],
  location: ShellLocation,
): (Set<string> | undefined)[] {
  let current: Set<string> | undefined = new Set([location.cwd]);
  const result: (Set<string> | undefined)[] = [current];
  for (const change of changes) {
    const from: Set<string> | undefined = current;
    if (
      from !== undefined &&
      change !== undefined &&
      isKnownHome(change) &&
      // A cd into /proc or /dev/fd goes where the shell's process, not ours, says.
      ![...from].some((directory) => reachesProcess(directory, change))
    ) {
      const next: Set<string> = new Set(from);
      for (const directory of from) next.add(absolutePath(directory, change, location.home));
      current = next.size > MAX_DIRECTORIES ? undefined : next;
    } else {
      current = undefined;
    }
    result.push(current);
  }
  return result;
}

function resolveTarget(
  target: { word: Word },
  directories: Set<string> | undefined,
  location: ShellLocation,
): ResolvedPath[] | undefined {
  const word = target.word;
  if (word.dynamic || !isKnownHome(word.value)) return undefined;
  const absolute = path.isAbsolute(word.value) || word.tilde;
  const bases = absolute
    ? [location.cwd]
    : directories === undefined
      ? undefined
      : [...directories];
  if (bases === undefined) return undefined;
  const paths: ResolvedPath[] = [];
  for (const base of bases) {
    if (!word.glob) {
      const full = absolutePath(base, word.value, location.home);
      paths.push({ absolute: full, real: realPath(full) });
      continue;
    }
    const expanded = expandGlob(base, word.value, word.literalPrefix, location.home);
    if (expanded === undefined) return undefined;
    paths.push(...expanded);
  }
  return paths;
}

/** The paths a glob matches now, or the literal pattern path when nothing matches (bash passes it on). */
function expandGlob(
  base: string,
  value: string,
  literalPrefix: string,
  home: string,
): ResolvedPath[] | undefined {
  const cut = literalPrefix.lastIndexOf('/');
  const directory = absolutePath(
    base,
    cut === -1 ? '.' : literalPrefix.slice(0, cut + 1) || '/',
    home,
  );
  const pattern = value.slice(cut + 1);
  if (pattern.split('/').includes('..')) return undefined;
  const matches = globSync(pattern, {
    cwd: directory,
    absolute: true,
    dot: false,
    onlyFiles: false,
    expandDirectories: false,
    followSymbolicLinks: false,
  });
  if (matches.length > MAX_GLOB_MATCHES) return undefined;
  const found =
    matches.length === 0
      ? [path.join(directory, pattern)]
      : matches.map((match) => path.normalize(match));
  return found.map((absolute) => ({ absolute, real: realPath(absolute) }));
}

/**
 * Whether a path, walked segment by segment from `base` as the kernel would
 * (before any `..` is folded away), passes through `/proc` or `/dev/fd`:
 * there `self`, a pid or a descriptor means the shell's process, not ours
 * (`/proc/self/cwd/…` after a `cd`), so the path cannot be known here.
 */
function reachesProcess(base: string, value: string): boolean {
  if (value.startsWith('~')) return false;
  const segments = (path.isAbsolute(value) ? value : `${base}/${value}`).split('/');
  const walked: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') walked.pop();
    else walked.push(segment);
    const at = `/${walked.join('/')}`;
    if (at === '/proc' || at === '/dev/fd' || /^\/dev\/std(in|out|err)$/.test(at)) return true;
  }
  return false;
}

/** Paths starting `~name` expand to another user's home, which we do not look up. */
function isKnownHome(value: string): boolean {
  return !value.startsWith('~') || value === '~' || value.startsWith('~/');
}

/** Whether a one-segment glob (`*`, `?`, `[..]`) matches a name (an unreadable pattern matches all). */
export function segmentGlobMatches(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return true;
  }
}
