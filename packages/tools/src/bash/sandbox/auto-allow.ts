import type { PermissionDecision } from '@parley/core';
import { dangerousPathReason, isHarmlessSink } from '../../shared/dangerous-paths.js';
import { isInside, isInWorkingDirectory } from '../../shared/paths.js';
import type { CommandAnalysis } from '../analysis.js';
import type { BashReads } from '../read-paths.js';
import type { ResolvedTarget, ShellLocation } from '../target-paths.js';
import { isNetworkCommand, writesGitConfig } from './command-needs.js';
import { protectedPaths } from './masks.js';

/** What `autoAllowed` weighs: the line, what it writes and reads, and where. */
export type AutoAllowInput = {
  analysis: CommandAnalysis;
  resolved: readonly ResolvedTarget[];
  reads: BashReads;
  /** The working directories, real paths. */
  directories: readonly string[];
  location: ShellLocation;
};

/**
 * Sandbox auto-allow (the option `sandbox.autoAllow`, ADR tools-0007): the
 * allow for a line the check would ask about, when the write policy holds
 * everything it can do — no network, writes only in the working directories
 * with the safety paths read-only and the secrets masked. Undefined when the
 * line needs more than that, so it still asks: it runs a network program,
 * reads a secret or outside the working directories, names a path to write
 * outside them, a safety path (`.git/hooks/…`, `.bashrc`, `.parley`) or
 * writes `.git/config` (the policy would open those for it).
 */
export function autoAllowed(input: AutoAllowInput): PermissionDecision | undefined {
  const { analysis, reads, directories } = input;
  if (isNetworkCommand(analysis) || writesGitConfig(analysis)) return undefined;
  if (reads.secrets.length > 0 || reads.outside.length > 0) return undefined;
  const protectedHere = directories.flatMap(protectedPaths);
  const named = input.resolved
    .flatMap((item) => item.paths ?? [])
    .filter((item) => !isHarmlessSink(item.absolute));
  const needsMore = named.some(
    ({ absolute, real }) =>
      !isInWorkingDirectory(directories, real) ||
      dangerousPathReason(absolute) !== undefined ||
      dangerousPathReason(real) !== undefined ||
      protectedHere.some((place) => isInside(place, real)),
  );
  if (needsMore) return undefined;
  return {
    behavior: 'allow',
    message: 'Permission granted for Bash (sandbox auto-allow)',
    decisionReason:
      'sandbox auto-allow: runs in the sandbox, writing only the working directories, without network',
  };
}
