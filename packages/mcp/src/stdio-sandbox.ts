import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import {
  bubblewrapArguments,
  existing,
  protectedPaths,
  SecretFinder,
  type SandboxPolicy,
} from '@parley/tools/sandbox';

const TMP = '/tmp';

const isInside = (directory: string, candidate: string): boolean =>
  candidate === directory ||
  candidate.startsWith(directory.endsWith('/') ? directory : `${directory}/`);

/** The real path of an existing absolute path, else undefined. */
function existingReal(place: string): string | undefined {
  if (!path.isAbsolute(place)) return undefined;
  try {
    return realpathSync.native(place);
  } catch {
    return undefined;
  }
}

/**
 * What the private `/tmp` would hide and the server needs to see: its
 * working directory (a checkout under `/tmp`, with its `node_modules`) and
 * each existing absolute path among its command and arguments, when they
 * lie below `/tmp` and not in a directory it may write (bound anyway).
 */
function visibleBelowTmp(places: readonly string[], writable: readonly string[]): string[] {
  const found = places
    .map(existingReal)
    .filter(
      (place): place is string =>
        place !== undefined &&
        isInside(TMP, place) &&
        place !== TMP &&
        !writable.some((dir) => isInside(dir, place)),
    );
  return [...new Set(found)].sort((a, b) => a.split('/').length - b.split('/').length);
}

/**
 * How a stdio server runs in a sandbox (`sandbox` in its config entry):
 * `true`, or the network it declares, the directories it may write and the
 * secrets it may read (masked otherwise).
 */
export type McpSandboxConfig =
  | boolean
  | {
      network?: boolean | undefined;
      writable?: string[] | undefined;
      readable?: string[] | undefined;
    };

/** Where the server runs, for `sandboxedCommand`. */
export type SandboxPlace = {
  cwd: string;
  /** The home whose secrets are masked; default the process's. */
  home?: string;
  /** The bubblewrap program; default `bwrap` on the `PATH`. */
  bubblewrap?: string;
  /** Finds the secrets; default a fresh one (the walk is done once per start). */
  secrets?: SecretFinder;
};

/**
 * Directories walked for secrets by name or content: the working directory
 * and the writable ones, but never `/`, the home or a directory holding it
 * (the home's secrets are known by place; walking it all would take long).
 */
function walked(directories: readonly string[], home: string): string[] {
  const found = directories.filter((directory) => directory !== '/' && !isInside(directory, home));
  return [...new Set(found)];
}

/**
 * The sandbox policy of a stdio server (ADR tools-0007, section 13), the
 * same kind the Bash tool builds for an approved command: the file system
 * read-only but for its working directory (or the `writable` directories),
 * with the safety paths inside them (`.git/hooks`, `.bashrc`, …) read-only
 * again; a private `/tmp`, its working directory and the paths it is
 * started with bound again, read-only, when they lie below `/tmp`; the
 * secrets the Bash sandbox masks (`~/.ssh`, `~/.aws`, `.env*` and private
 * keys in its directories, …) masked, except those its entry names (its
 * `cwd`, an argument, in `writable` or in `readable`); no network unless it declares
 * `network: true`.
 */
export async function serverPolicy(
  command: string,
  args: readonly string[],
  sandbox: Exclude<McpSandboxConfig, false>,
  place: SandboxPlace,
): Promise<SandboxPolicy> {
  const { cwd } = place;
  const options = sandbox === true ? {} : sandbox;
  const home = existing(place.home ?? homedir())?.path ?? place.home ?? homedir();
  const writable = (options.writable ?? [cwd])
    .map((dir) => path.resolve(cwd, dir))
    .map((dir) => existingReal(dir) ?? dir);
  const visible = visibleBelowTmp([cwd, command, ...args], writable);
  // Its working directory is named too: a server started inside a secret directory sees it.
  const named = [cwd, ...args, ...writable, ...(options.readable ?? [])].flatMap(
    (item) => existing(path.resolve(cwd, item))?.path ?? [],
  );
  const seen = (item: string): boolean =>
    !isInside(TMP, item) || [...visible, ...writable].some((dir) => isInside(dir, item));
  const realCwd = existingReal(cwd) ?? cwd;
  const secrets = place.secrets ?? new SecretFinder();
  const masks = (await secrets.find(walked([realCwd, ...writable], home), home)).filter(
    (mask) => !named.some((item) => isInside(mask.path, item)) && seen(mask.path),
  );
  const protect = [...new Set(writable.flatMap(protectedPaths))].filter(
    (item) => !named.some((name) => isInside(item, name)),
  );
  return {
    level: 'write',
    cwd,
    writable,
    visible,
    protect,
    sealed: [],
    masks,
    privateTmp: true,
    tmpdir: undefined,
    network: options.network === true,
  };
}

/**
 * The command that starts a stdio server inside bubblewrap, under its
 * `serverPolicy`, built by the Bash tool's builder (`bubblewrapArguments`
 * from `@parley/tools/sandbox`): its own PID, IPC and UTS namespaces, no
 * capabilities, killed with Parley. A masked file is `/dev/null` bound
 * read-only (the SDK's transport passes no descriptors past stderr).
 */
export async function sandboxedCommand(
  command: string,
  args: readonly string[],
  sandbox: Exclude<McpSandboxConfig, false>,
  place: SandboxPlace,
): Promise<{ command: string; args: string[] }> {
  const policy = await serverPolicy(command, args, sandbox, place);
  const bwrap = bubblewrapArguments(policy, 'device');
  return { command: place.bubblewrap ?? 'bwrap', args: [...bwrap.args, command, ...args] };
}
