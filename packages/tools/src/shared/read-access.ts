import { permissionMessages } from '@parley/core';
import type { PermissionDecision, PermissionRule } from '@parley/core';
import { isInWorkingDirectory } from './paths.js';
import { displayPath, hasSecretContent, isSecretPath } from './secret-paths.js';

/** A path a call reads, as written (absolute) and with symlinks resolved. */
export type ReadPath = {
  absolute: string;
  real: string;
  /** The call walks the tree below it (Glob, Grep over a directory), leaving secrets in it out. */
  recursive: boolean;
};

/** What makes a call's reads need asking; both empty when they are harmless. */
export type ReadFindings = {
  /** Secrets read, as people write them (`~/.ssh/id_rsa`). */
  secrets: string[];
  /** Paths read outside every working directory, or that cannot be known before running. */
  outside: string[];
};

/**
 * Judges the paths a file tool reads: secrets by name and place, and a
 * single file by a private key header (a walked tree is not searched: the
 * walk leaves its secrets out); and paths outside the working directories
 * (real paths, so a symlink or `..` cannot hide where a read lands).
 * `unknown` names reads whose path cannot be known before running; they
 * count as outside.
 */
export function findReadProblems(
  reads: readonly ReadPath[],
  unknown: readonly string[],
  directories: readonly string[],
  home: string,
): ReadFindings {
  const secrets: string[] = [];
  const outside = unknown.map((text) => `${text} (unknown path)`);
  for (const read of reads) {
    const shown = displayPath(read.absolute, home);
    const secret =
      isSecretPath(read.absolute) ||
      isSecretPath(read.real) ||
      (!read.recursive && hasSecretContent(read.real));
    if (secret) secrets.push(shown);
    if (!isInWorkingDirectory(directories, read.real)) outside.push(displayPath(read.real, home));
  }
  return { secrets: [...new Set(secrets)], outside: [...new Set(outside)] };
}

/** `reads a secret: ~/.ssh/id_rsa`, the reason shown with a secret read. */
export function secretReadReason(secrets: readonly string[]): string {
  return `reads a secret: ${secrets.join(', ')}`;
}

/** `outside the working directories: ~/notes/a.md`, the reason shown with an outside read. */
export function outsideReadReason(outside: readonly string[]): string {
  return `outside the working directories: ${outside.join(', ')}`;
}

/**
 * The ask a call's reads need, or undefined when they are harmless: a secret
 * is a safety ask (`bypassImmune`, no suggestion: no rule may clear it); a
 * read outside the working directories is an ordinary ask, with `suggestions`
 * if given (they must clear it; the engine checks).
 */
export function readsDecision(
  toolName: string,
  findings: ReadFindings,
  suggestions?: PermissionRule[],
): PermissionDecision | undefined {
  if (findings.secrets.length > 0) {
    return {
      behavior: 'ask',
      message: permissionMessages.ask(toolName),
      decisionReason: `Safety: ${secretReadReason(findings.secrets)}`,
      bypassImmune: true,
    };
  }
  if (findings.outside.length > 0) {
    return {
      behavior: 'ask',
      message: permissionMessages.ask(toolName),
      decisionReason: outsideReadReason(findings.outside),
      ...(suggestions === undefined ? {} : { suggestedRules: suggestions }),
    };
  }
  return undefined;
}
