import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { PermissionMode } from '@parley/core';
import { isHarmlessSink } from '../../shared/dangerous-paths.js';
import { isInside, isInWorkingDirectory, realPath } from '../../shared/paths.js';
import type { CommandAnalysis } from '../analysis.js';
import type { BashReads } from '../read-paths.js';
import type { ResolvedTarget, ShellLocation } from '../target-paths.js';
import { isNetworkCommand, writesGitConfig } from './command-needs.js';
import { existing, linkedGitPaths, protectedPaths, type SecretFinder } from './masks.js';
import type { SandboxPolicy } from './policy-types.js';

/** Caches of package managers below the home directory, writable for approved commands. */
const CACHES = ['.npm', '.cache', '.yarn', '.pnpm-store', '.local/share/pnpm', '.bun'];

/** Variables that name a package cache (`npx` and `npm run` set `npm_config_cache`). */
const CACHE_VARIABLES = [
  'npm_config_cache',
  'NPM_CONFIG_CACHE',
  'XDG_CACHE_HOME',
  'YARN_CACHE_FOLDER',
  'PIP_CACHE_DIR',
  'npm_config_store_dir',
];

/**
 * The cache directories the command's environment names, writable for an
 * approved line like the home's caches: absolute, existing directories
 * below a top-level one that hold neither the home nor a working directory
 * (so `/`, `/usr` or the home itself never becomes writable through a
 * variable).
 */
export function environmentCaches(
  env: Readonly<Record<string, string | undefined>>,
  guarded: readonly string[],
): string[] {
  const found: string[] = [];
  for (const name of CACHE_VARIABLES) {
    const value = env[name];
    if (value === undefined || !path.isAbsolute(value)) continue;
    const item = existing(value);
    // Below a top-level directory: `/usr` or `/etc` is never a cache.
    if (item?.directory !== true || item.path.split('/').length < 3) continue;
    if (guarded.some((place) => isInside(item.path, realPath(place)))) continue;
    found.push(item.path);
  }
  return found;
}

/** Everything the policy of one command is made from. */
export type PolicyInput = {
  /** Undefined when the line could not be analysed (it was a safety ask). */
  analysis: CommandAnalysis | undefined;
  reads: BashReads;
  resolved: readonly ResolvedTarget[];
  /** The working directories, real paths, the cwd first. */
  directories: readonly string[];
  location: ShellLocation;
  mode: PermissionMode;
  /** Hosts of `sandbox.network.allow`. */
  networkAllow: readonly string[];
  /** The command's `TMPDIR`, if set. */
  tmpdir: string | undefined;
  /** Cache directories the command's environment names (`environmentCaches`). */
  caches: readonly string[];
  secrets: SecretFinder;
  /**
   * Whether the decision that let the line run permits writes (a rule, a
   * mode that writes unasked, a person's yes). When it does not, the line
   * gets the read-only policy whatever its analysis says.
   */
  writes: boolean;
};

const TMP = '/tmp';
const underTmp = (item: string): boolean => isInside(TMP, item);

/**
 * The sandbox policy of a command the permission check let run (ADR
 * tools-0007). A line proven read-only, or allowed by a decision that
 * permits no writes (`writes` false), gets the read-only policy; any other
 * line gets the working directories (and what it names outside them) to
 * write, and the network only when it runs a network command or
 * `networkAllow` lists hosts; in bypass mode the whole file system is
 * writable. In every policy the secrets are masked and the safety paths stay
 * read-only, except those the line itself names: it was asked about them.
 */
export async function sandboxPolicy(input: PolicyInput): Promise<SandboxPolicy> {
  const { analysis, location } = input;
  const level =
    analysis?.readOnly === true || !input.writes
      ? 'read-only'
      : input.mode === 'bypass'
        ? 'bypass'
        : 'write';
  // Paths the line names uncover what they name only when a person or a rule saw them.
  const named = (input.writes ? input.resolved : [])
    .flatMap((item) => item.paths ?? [])
    .filter((item) => !isHarmlessSink(item.absolute))
    .map((item) => item.real);
  const secretsNamed = input.reads.secrets.map((shown) =>
    realPath(shown.startsWith('~/') ? path.join(location.home, shown.slice(2)) : shown),
  );
  // A path named is the protected or masked one or lies inside it; a named
  // directory around it (`rm -r .`) does not uncover what it holds.
  const touches = (place: string, list: readonly string[]): boolean =>
    list.some((item) => isInside(place, item));

  const sealed = level === 'bypass' ? sealedHome(input) : undefined;
  const writable = level === 'write' ? writablePaths(input, named) : (sealed?.entries ?? []);
  const visible = [
    location.cwd,
    ...input.directories,
    location.home,
    ...input.reads.outside.flatMap((read) => (read.real === undefined ? [] : [read.real])),
  ]
    .map((item) => existing(item)?.path)
    .filter((item): item is string => item !== undefined && underTmp(item));
  const seen = (place: string): boolean =>
    level === 'bypass' ||
    !underTmp(place) ||
    [...visible, ...writable].some((item) => isInside(item, place));

  const roots =
    level === 'bypass'
      ? [...input.directories, location.home]
      : writable.filter((item) => existing(item)?.directory === true);
  const gitConfig = analysis !== undefined && writesGitConfig(analysis);
  const protect = [...new Set(roots.flatMap(protectedPaths))].filter(
    (place) =>
      !touches(place, named) &&
      !(gitConfig && path.basename(place) === 'config') &&
      (level === 'bypass' || writable.some((item) => isInside(item, place))),
  );
  const masks = (await input.secrets.find(input.directories, location.home)).filter(
    (mask) => !touches(mask.path, [...secretsNamed, ...named]) && seen(mask.path),
  );
  const tmpdir =
    level !== 'bypass' &&
    input.tmpdir !== undefined &&
    path.isAbsolute(input.tmpdir) &&
    existing(input.tmpdir)?.directory === true &&
    ![...visible, ...writable, ...input.directories].some((item) =>
      isInside(realPath(input.tmpdir ?? ''), item),
    )
      ? realPath(input.tmpdir)
      : undefined;
  return {
    level,
    cwd: location.cwd,
    writable,
    visible,
    protect,
    sealed: sealed === undefined ? [] : [sealed.directory],
    masks,
    privateTmp: level !== 'bypass',
    tmpdir,
    network:
      level === 'bypass' ||
      (level === 'write' &&
        ((analysis !== undefined && isNetworkCommand(analysis)) || input.networkAllow.length > 0)),
  };
}

/**
 * The home in bypass mode, sealed: read-only, with each entry it holds
 * (not a link: one that points elsewhere writes there anyway) bound
 * writable again. A protected path that does not exist yet
 * (`~/.bash_profile`, `~/.npmrc`) cannot be bound read-only, and binding a
 * placeholder there would create it on the host; in a sealed home nothing
 * new can be made at its top, so neither can it, through a link or not.
 * Not done when the home is, or is inside, a working directory: the top of
 * a working directory must take new files.
 */
function sealedHome(input: PolicyInput): { directory: string; entries: string[] } | undefined {
  const home = existing(input.location.home);
  if (home?.directory !== true || home.path === '/') return undefined;
  if (input.directories.some((directory) => isInside(directory, home.path))) return undefined;
  let names: string[];
  try {
    names = readdirSync(home.path);
  } catch {
    return undefined;
  }
  const entries = names
    .map((name) => path.join(home.path, name))
    .filter((entry) => {
      try {
        return !lstatSync(entry).isSymbolicLink();
      } catch {
        return false;
      }
    });
  return { directory: home.path, entries };
}

/**
 * What an approved line may write: the working directories, the git
 * directories a linked worktree keeps outside itself, package caches (the
 * home's and those its environment names), and
 * each existing path it names outside them (the person saw it in the ask).
 * A new file it names outside is not granted: its directory would be far
 * more than the ask said, so that write is blocked and reported.
 */
function writablePaths(input: PolicyInput, named: readonly string[]): string[] {
  const places: string[] = [...input.directories];
  for (const directory of input.directories) {
    const linked = linkedGitPaths(directory);
    if (linked !== undefined) places.push(linked.own, linked.common);
  }
  places.push(...CACHES.map((name) => path.join(input.location.home, name)), ...input.caches);
  for (const item of named) {
    if (!isInWorkingDirectory(input.directories, item)) places.push(item);
  }
  const found = places
    .map((place) => existing(place)?.path)
    .filter((place): place is string => place !== undefined && place !== '/');
  return [...new Set(found)];
}
