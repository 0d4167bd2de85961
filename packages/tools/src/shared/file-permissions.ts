import path from 'node:path';
import { permissionMessages } from '@parley/core';
import type { PermissionContext, PermissionDecision, PermissionRule } from '@parley/core';
import { dangerousPathReason, isDeviceWrite } from './dangerous-paths.js';
import { escapeGlob } from './glob-rule.js';
import { absolutePath, isInWorkingDirectory, realPath, workingDirectories } from './paths.js';

/** A path a file tool works on: as given (made absolute) and with symlinks resolved. */
export type FileTarget = {
  /** Absolute and normalized, symlinks not followed. */
  absolute: string;
  /** Symlinks resolved (nearest existing ancestor for a file not yet there). */
  real: string;
};

/** Resolves a tool's path input against its cwd. */
export function fileTarget(cwd: string, input: string): FileTarget {
  const absolute = absolutePath(cwd, input);
  return { absolute, real: realPath(absolute) };
}

/** The modes in which edits inside a working directory need no confirmation. */
export function isEditMode(mode: PermissionContext['mode']): boolean {
  return mode === 'accept_edits' || mode === 'dont_ask';
}

/**
 * The own check of a file-changing tool (Write, Edit): a dangerous file or
 * directory is a safety ask; in `accept_edits`/`dont_ask` mode a target
 * inside a working directory is allowed; otherwise the engine goes on to
 * rules and the fallback.
 */
export function checkFileChange(
  toolName: string,
  target: FileTarget,
  context: PermissionContext,
  cwd: string,
): PermissionDecision {
  const danger =
    dangerousPathReason(target.real) ??
    dangerousPathReason(target.absolute) ??
    (isDeviceWrite(target.real) ? `${target.real} is a device file` : undefined);
  if (danger !== undefined) {
    return {
      behavior: 'ask',
      message: permissionMessages.ask(toolName),
      decisionReason: `Safety: ${danger}`,
      bypassImmune: true,
    };
  }
  if (
    isEditMode(context.mode) &&
    isInWorkingDirectory(workingDirectories(context, cwd), target.real)
  ) {
    return {
      behavior: 'allow',
      message: `Permission granted for ${toolName} (${context.mode} mode)`,
      decisionReason: `mode: ${context.mode} (${target.real} is inside a working directory)`,
    };
  }
  return { behavior: 'passthrough', message: '' };
}

/**
 * The suggestion for a file tool (SPEC section 7): allow the directory of the
 * target, `{dir}/**`, on the symlink-resolved path so the rule matches the
 * call that asked. A directory target (Glob, Grep) suggests itself.
 */
export function suggestFileRule(
  toolName: string,
  target: FileTarget,
  isDirectory: boolean,
): PermissionRule {
  const directory = isDirectory ? target.real : path.dirname(target.real);
  const base = directory === '/' ? '' : escapeGlob(directory);
  return { toolName, ruleContent: `${base}/**`, behavior: 'allow', source: 'suggested' };
}
