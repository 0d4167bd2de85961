import { execFile } from 'node:child_process';
import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { glob } from 'tinyglobby';
import { dangerousNames } from '../../shared/dangerous-paths.js';
import { isInside } from '../../shared/paths.js';
import { homeSecretPlaces, isSecretPath } from '../../shared/secret-paths.js';
import { holdsPrivateKey } from './key-content.js';

/** System files that hold password hashes and host keys. */
const SYSTEM_SECRETS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
];

/** Settings of tools that run code or hold Parley's own state, kept read-only in a writable directory. */
const TOOL_SETTINGS = ['.git/hooks', '.git/config', '.parley', 'parley.config.json', '.claude'];

/** How long a walk of a working directory for secrets is reused (see `SecretFinder`). */
const WALK_TTL_MS = 30_000;
const WALK_DEPTH = 12;
const WALK_IGNORE = ['**/node_modules/**', '**/.git/**'];

/** A path that exists, as its real path with whether it is a directory; undefined when it does not exist. */
export function existing(place: string): { path: string; directory: boolean } | undefined {
  try {
    lstatSync(place);
    const real = realpathSync.native(place);
    return { path: real, directory: statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}

/**
 * Finds the secrets to mask: the well-known places in the home directory,
 * the system's password and host key files, and files with secret names
 * (`.env*`, keys, credentials) or a private key as their first bytes
 * (`holdsPrivateKey`) in the working directories. A working
 * directory's walk costs tens of milliseconds in a big project, so it is
 * reused for `WALK_TTL_MS`, and forgotten after every command that could
 * write (`forget`): a read-only command cannot create a secret in the
 * sandbox, so only the person or other programs can between two walks.
 */
export class SecretFinder {
  private readonly walks = new Map<string, { at: number; found: string[] }>();

  /** Every existing secret to mask for these working directories and home. */
  async find(
    directories: readonly string[],
    home: string,
  ): Promise<{ path: string; directory: boolean }[]> {
    const places = [...homeSecretPlaces(home), ...SYSTEM_SECRETS];
    for (const directory of directories) places.push(...(await this.walk(directory)));
    const found = new Map<string, { path: string; directory: boolean }>();
    for (const place of places) {
      const item = existing(place);
      if (item !== undefined && item.path !== '/') found.set(item.path, item);
    }
    return [...found.values()];
  }

  /** Drops the cached walks; the next `find` walks again. */
  forget(): void {
    this.walks.clear();
  }

  private async walk(directory: string): Promise<string[]> {
    const cached = this.walks.get(directory);
    if (cached !== undefined && Date.now() - cached.at < WALK_TTL_MS) return cached.found;
    const entries = await glob('**', {
      cwd: directory,
      absolute: true,
      dot: true,
      onlyFiles: false,
      followSymbolicLinks: false,
      ignore: WALK_IGNORE,
      deep: WALK_DEPTH,
    }).catch(() => []);
    const found = entries
      .map((entry) => path.normalize(entry))
      .filter((entry) => isSecretPath(entry) || holdsPrivateKey(entry));
    // A secret directory hides what is inside it; keep the outermost only.
    // A file git tracks is no secret from the command (`git show HEAD:.env`),
    // and masking it would make git see it changed, and commit it empty.
    const tracked = await trackedFiles(directory, found);
    const outermost = found.filter(
      (entry) =>
        !tracked.has(entry) && !found.some((other) => other !== entry && isInside(other, entry)),
    );
    this.walks.set(directory, { at: Date.now(), found: outermost });
    return outermost;
  }
}

/**
 * The existing paths that stay read-only inside a writable directory:
 * `.git/hooks` and `.git/config` (also of the repository a linked worktree
 * points to), Parley's and other tools' settings, and shell start-up and
 * tool configuration files (`.bashrc`, `.npmrc`, `.vscode`, …).
 */
export function protectedPaths(root: string): string[] {
  const names = [...TOOL_SETTINGS, ...dangerousNames()];
  const places = names.map((name) => path.join(root, name));
  const linked = linkedGitPaths(root);
  if (linked !== undefined) {
    places.push(path.join(linked.common, 'hooks'), path.join(linked.common, 'config'));
  }
  return places.flatMap((place) => existing(place)?.path ?? []);
}

/**
 * A linked worktree's own git directory and the common one it belongs to
 * (its `.git` is a file naming `…/.git/worktrees/NAME`); undefined for an
 * ordinary repository. A commit there writes both, outside the worktree.
 */
export function linkedGitPaths(root: string): { own: string; common: string } | undefined {
  const item = existing(path.join(root, '.git'));
  if (item === undefined || item.directory) return undefined;
  const own = readGitFile(item.path, /^gitdir:\s*(.+)$/m);
  if (own === undefined) return undefined;
  const ownPath = path.resolve(root, own);
  const common = readGitFile(path.join(ownPath, 'commondir'), /^(.+)$/m);
  return { own: ownPath, common: common === undefined ? ownPath : path.resolve(ownPath, common) };
}

function readGitFile(file: string, pattern: RegExp): string | undefined {
  try {
    // A `.git` file or `commondir` is one short line.
    const text = readFileSync(file, 'utf8');
    return pattern.exec(text)?.[1]?.trim();
  } catch {
    return undefined;
  }
}

const run = promisify(execFile);

/** Which of `files` git tracks in the repository `directory` is in; none when it is not one. */
async function trackedFiles(directory: string, files: readonly string[]): Promise<Set<string>> {
  if (files.length === 0) return new Set();
  try {
    const { stdout } = await run(
      'git',
      ['-C', directory, 'ls-files', '-z', '--full-name', '--', ...files],
      { encoding: 'utf8', timeout: 5_000 },
    );
    const top = await run('git', ['-C', directory, 'rev-parse', '--show-toplevel'], {
      encoding: 'utf8',
      timeout: 5_000,
    });
    const root = realpathSync.native(top.stdout.trim());
    return new Set(
      stdout
        .split('\0')
        .filter((name) => name !== '')
        .map((name) => path.join(root, name)),
    );
  } catch {
    return new Set();
  }
}
