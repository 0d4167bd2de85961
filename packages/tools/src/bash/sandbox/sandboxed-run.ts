import type { PermissionContext, ToolChunk, ToolContext } from '@parley/core';
import { workingDirectories } from '../../shared/paths.js';
import { analyseCommandLineAsync } from '../analysis.js';
import { judgeBashReads, type BashReads } from '../read-paths.js';
import { runCommand, type RunOptions } from '../run-command.js';
import { resolveTargets, type ShellLocation } from '../target-paths.js';
import { BlockedWatcher } from './blocked.js';
import { decisionPermitsWrites } from './decision-limit.js';
import type { SecretFinder } from './masks.js';
import { environmentCaches, sandboxPolicy } from './policy.js';
import type { SandboxPolicy } from './policy-types.js';
import type { CommandSandbox } from './sandbox.js';

/** What `runSandboxed` needs besides the command's own run options. */
export type SandboxedRun = {
  run: Omit<RunOptions, 'wrap'>;
  /** The call's `sandbox` input: `false` runs it outside (the permission check asked). */
  outside: boolean;
  context: ToolContext;
  location: ShellLocation;
  sandbox: CommandSandbox;
  secrets: SecretFinder;
  /** Called when the command runs bare because there is no sandbox, with why. */
  onBare: (reason: string) => void;
};

/** The sandbox part of a result's metadata: what ran it, under which policy, and what it blocked. */
export type SandboxMetadata = {
  kind: 'bubblewrap' | 'none';
  policy: SandboxPolicy['level'] | 'outside';
  network: boolean;
  blocked: string[];
};

/**
 * Runs one command in the sandbox its analysis calls for (see
 * `sandboxPolicy`), or bare when the call asked to run outside, the setting
 * is `off`, or `auto` found no sandbox. The result's metadata gets a
 * `sandbox` entry (`SandboxMetadata`), and what the sandbox blocked is said
 * in words at the end of the output, so the model can ask to run it outside.
 */
export async function* runSandboxed(options: SandboxedRun): AsyncGenerator<ToolChunk> {
  const adapter = options.outside ? undefined : options.sandbox.available();
  if (adapter === undefined && !options.outside) {
    options.onBare(options.sandbox.bareReason() ?? 'no sandbox');
  }
  const policy =
    adapter === undefined
      ? undefined
      : await commandPolicy(options.run.command, {
          permission: options.context.permission,
          location: options.location,
          networkAllow: options.sandbox.networkAllow,
          tmpdir: options.run.env.TMPDIR,
          env: options.run.env,
          secrets: options.secrets,
          writes: decisionPermitsWrites(
            options.context.allowedBy,
            options.context.permission.mode,
            options.sandbox.autoAllows(),
          ),
        });
  const watcher = new BlockedWatcher(options.location.home, policy?.network === false);
  const chunks = runCommand({
    ...options.run,
    ...(adapter === undefined || policy === undefined
      ? {}
      : { wrap: (argv: string[]) => adapter.wrap(policy, argv) }),
  });
  try {
    for await (const chunk of chunks) {
      if (chunk.type === 'text' && policy !== undefined) watcher.push(chunk.text);
      if (chunk.type !== 'tool_end') {
        yield chunk;
        continue;
      }
      const blocked = watcher.blocked();
      if (blocked.length > 0) {
        yield {
          type: 'text',
          text: `\n[blocked by the sandbox: ${blocked.join('; ')}. To run it outside the sandbox, call Bash again with sandbox: false; that asks the person.]`,
        };
      }
      const sandbox: SandboxMetadata = {
        kind: adapter?.kind ?? 'none',
        policy: policy?.level ?? 'outside',
        network: policy?.network ?? true,
        blocked,
      };
      yield { ...chunk, metadata: { ...chunk.metadata, sandbox } };
    }
  } finally {
    // Only a read-only run cannot have made a new secret file in a working directory.
    if (policy?.level !== 'read-only') options.secrets.forget();
  }
}

/** Where and how a command runs, for `commandPolicy`. */
export type PolicyPlace = {
  permission: PermissionContext;
  location: ShellLocation;
  networkAllow: readonly string[];
  tmpdir: string | undefined;
  /** The command's environment, for the caches it names; none when not given. */
  env?: Readonly<Record<string, string | undefined>>;
  secrets: SecretFinder;
  /** Whether the decision that let the command run permits writes (`decisionPermitsWrites`). */
  writes: boolean;
};

/**
 * The sandbox policy of a command from its analysis and the decision that
 * let it run (see `sandboxPolicy`).
 * A line that cannot be analysed was a safety ask, so a person approved it:
 * it gets the write policy with nothing named, the least an approved
 * command gets.
 */
export async function commandPolicy(command: string, place: PolicyPlace): Promise<SandboxPolicy> {
  const { permission, location } = place;
  const analysis = await analyseCommandLineAsync(command).catch(() => undefined);
  const noReads: BashReads = { secrets: [], outside: [] };
  const reads =
    analysis === undefined
      ? noReads
      : await judgeBashReads(analysis, permission, location).catch(() => noReads);
  return sandboxPolicy({
    analysis,
    reads,
    resolved: analysis === undefined ? [] : resolveTargets(analysis, location),
    directories: workingDirectories(permission, location.cwd),
    location,
    mode: permission.mode,
    networkAllow: place.networkAllow,
    tmpdir: place.tmpdir,
    caches: environmentCaches(place.env ?? {}, [
      location.home,
      ...workingDirectories(permission, location.cwd),
    ]),
    secrets: place.secrets,
    writes: place.writes,
  });
}
