import { closeSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { isInside, realPath } from './paths.js';

/**
 * Where secrets live, by name: reading one puts a key, a token or a
 * password into the model's context, from where it can reach the provider
 * and whatever the model writes next. Matched case-insensitively on every
 * segment, so `.SSH/id_rsa` on a case-insensitive file system counts too.
 */
const SECRET_DIRECTORIES = new Set([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.password-store',
  '.mozilla',
  '.thunderbird',
]);

/** Directories that hold secrets only below a parent of a given name (`.config/gcloud`). */
const SECRET_NESTED: readonly (readonly string[])[] = [
  ['.config', 'gcloud'],
  ['.config', 'gh'],
  ['.config', 'google-chrome'],
  ['.config', 'chromium'],
  ['.config', 'bravesoftware'],
  ['.config', 'microsoft-edge'],
  ['.local', 'share', 'keyrings'],
  ['library', 'keychains'],
  ['library', 'application support', 'google', 'chrome'],
  ['library', 'application support', 'firefox'],
  ['snap', 'firefox'],
];

/** Credential files of tools, and shell and REPL histories. */
const SECRET_FILES = new Set([
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.boto',
  '.s3cfg',
  '.dockercfg',
  '.history',
  'fish_history',
]);

/**
 * Secrets known by their whole place, matched on the lower-cased absolute
 * path: the system's password hashes, SSH host keys, and credential files
 * whose names alone say nothing (`credentials`, `auth.json`): git's XDG
 * credential store, cargo, the cloud CLIs, the coding agents' own logins and
 * Parley's own store of API keys.
 */
const SECRET_PLACES: readonly RegExp[] = [
  /^\/etc\/g?shadow-?$/,
  /^\/etc\/ssh\/ssh_host_[^/]*_key$/,
  /\/\.config\/git\/credentials$/,
  /\/\.cargo\/credentials(?:\.toml)?$/,
  /\/\.config\/(?:github-copilot|doctl|hcloud|op|heroku)(?:\/|$)/,
  /\/\.oci(?:\/|$)/,
  /\/\.terraform\.d\/credentials\.tfrc\.json$/,
  /\/\.claude\/\.credentials\.json$/,
  /\/\.codex\/auth\.json$/,
  /\/\.gemini\/oauth_creds\.json$/,
  /\/\.parley\/parley\.sqlite(?:-wal|-shm|-journal)?$/,
  /\/\.yarnrc\.yml$/,
  /\/\.config\/npm\/npmrc$/,
];

/** Private keys and keystores by extension. */
const SECRET_EXTENSIONS = new Set([
  '.pem',
  '.key',
  '.p12',
  '.pfx',
  '.jks',
  '.keystore',
  '.kdbx',
  '.ppk',
  '.p8',
]);

/** `.env` files meant to be committed: they name variables, not their values. */
const ENV_TEMPLATES = /^\.env\.(example|sample|template|dist|defaults)$/;

/** SSH keys (`id_rsa`, `id_ed25519_sk`), not files with an extension such as `id_utils.ts`. */
const SSH_KEY_NAME = /^id_[a-z0-9_-]+$/;

/** The start of a PEM, OpenSSH or PGP private key. */
const PRIVATE_KEY_HEADER = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const SNIFF_BYTES = 4096;

/** Whether a file name (one segment) names a secret. */
function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_FILES.has(lower) || lower.endsWith('_history')) return true;
  if (lower.startsWith('.env') && !ENV_TEMPLATES.test(lower)) return true;
  if (SSH_KEY_NAME.test(lower)) return true;
  return SECRET_EXTENSIONS.has(path.extname(lower));
}

/**
 * Whether reading `absolute` (absolute, normalized) may read a secret, by
 * its name and place: SSH and GPG keys, cloud and tool credentials, `.env*`
 * files, private keys and keystores, shell histories, browser profiles and
 * `/proc/{pid}/environ`. Check both the path as written and its real path.
 */
export function isSecretPath(absolute: string): boolean {
  const segments = absolute
    .split(path.sep)
    .filter((segment) => segment !== '')
    .map((segment) => segment.toLowerCase());
  if (segments[0] === 'proc' && segments.at(-1) === 'environ') return true;
  const joined = `/${segments.join('/')}`;
  if (SECRET_PLACES.some((place) => place.test(joined))) return true;
  if (segments.some((segment) => SECRET_DIRECTORIES.has(segment))) return true;
  for (let i = 0; i < segments.length; i++) {
    if (SECRET_NESTED.some((nested) => nested.every((part, j) => segments[i + j] === part))) {
      return true;
    }
  }
  const name = segments.at(-1);
  return name !== undefined && isSecretName(name);
}

/**
 * Whether the start of a regular file holds a private key header. Cheap (one
 * small read); a file that cannot be read is not a secret by content.
 */
export function hasSecretContent(real: string): boolean {
  let descriptor: number | undefined;
  try {
    if (!lstatSync(real).isFile()) return false;
    descriptor = openSync(real, 'r');
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const read = readSync(descriptor, buffer, 0, SNIFF_BYTES, 0);
    return PRIVATE_KEY_HEADER.test(buffer.toString('latin1', 0, read));
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Whether text (a file's content) holds a private key. */
export function textHoldsPrivateKey(text: string): boolean {
  return PRIVATE_KEY_HEADER.test(text);
}

/** Where secrets live below a home directory, for reads that cover a whole tree. */
const HOME_SECRETS = [
  ...SECRET_DIRECTORIES,
  ...SECRET_NESTED.map((nested) => nested.join(path.sep)),
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.bash_history',
  '.zsh_history',
  path.join('.config', 'git', 'credentials'),
  path.join('.cargo', 'credentials'),
  path.join('.cargo', 'credentials.toml'),
  path.join('.claude', '.credentials.json'),
  path.join('.codex', 'auth.json'),
  path.join('.gemini', 'oauth_creds.json'),
];

/** The well-known places of secrets below a home directory (they may not exist). */
export function homeSecretPlaces(home: string): string[] {
  return HOME_SECRETS.map((name) => path.join(home, name));
}

/** Directories not walked when looking for secrets in a tree (dependencies, git objects). */
const WALK_IGNORE = ['**/node_modules/**', '**/.git/**'];
const WALK_DEPTH = 16;

/**
 * The secrets a recursive read of `directory` (real, absolute) would reach,
 * the first few by path: the well-known places under `home` and `/proc` when
 * the tree holds them, then files with secret names found by walking it
 * (dependencies and `.git` are not walked; symlinks are followed, and a
 * path whose real place is a secret counts). Empty when the tree holds none.
 */
export async function secretsInside(directory: string, home: string, limit = 3): Promise<string[]> {
  const known = [...homeSecretPlaces(home), '/proc']
    .filter((place) => isInside(directory, place))
    .map((place) => (place === '/proc' ? '/proc/*/environ' : place));
  if (known.length > 0) return known.slice(0, limit);
  if (isSecretPath(directory)) return [directory];
  const entries = await glob('**', {
    cwd: directory,
    absolute: true,
    dot: true,
    onlyFiles: false,
    ignore: WALK_IGNORE,
    deep: WALK_DEPTH,
  });
  const found: string[] = [];
  for (const entry of entries.sort()) {
    const absolute = path.normalize(entry);
    if (isSecretPath(absolute) || isSecretPath(realPath(absolute))) found.push(absolute);
    if (found.length >= limit) break;
  }
  return found;
}

/** A path as people write it: `~/.ssh/id_rsa` below the home directory. */
export function displayPath(absolute: string, home: string): string {
  if (absolute === home) return '~';
  return isInside(home, absolute) ? `~/${path.relative(home, absolute)}` : absolute;
}
