import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type {
  PermissionContext,
  PermissionDecision,
  PermissionRule,
  Tool,
  ToolContext,
  ToolOutput,
} from '@parley/core';
import {
  checkFileChange,
  fileTarget,
  suggestFileRule,
  type FileTarget,
} from '../shared/file-permissions.js';
import { matchesFileRule } from '../shared/glob-rule.js';
import { workingDirectories } from '../shared/paths.js';
import { findReadProblems, readsDecision, type ReadPath } from '../shared/read-access.js';

/** Options shared by the file tools. */
export type FileToolOptions = {
  /** Where relative paths are read from; also a working directory. Default `process.cwd()`. */
  cwd?: string;
};

/**
 * What the file tools share: a path input resolved against `cwd`, glob rules
 * matched on the symlink-resolved absolute path (SPEC section 7), `{dir}/**`
 * suggestions, and the write check of `checkFileChange` for tools that change
 * files. Reading tools are read-only, so the engine allows them at step 3,
 * unless they read outside the working directories or a secret (`checkReads`).
 */
export abstract class FileTool<Input> implements Tool<Input> {
  abstract readonly name: string;
  abstract readonly description: string;
  abstract readonly inputSchema: z.ZodType<Input>;
  /** Whether the tool only reads (Read, Glob, Grep). */
  protected abstract readonly reads: boolean;
  /** Whether the path input names a directory (Glob, Grep) rather than a file. */
  protected abstract readonly targetsDirectory: boolean;
  readonly external = false;
  abstract readonly idempotent: boolean;
  /** The directory relative paths resolve against. */
  readonly cwd: string;
  private schema: Record<string, unknown> | undefined;

  constructor(options: FileToolOptions = {}) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
  }

  /** The raw path the input names (absolute or relative to `cwd`). */
  protected abstract pathOf(input: Input): string;

  /** Does the work; errors are thrown as `FileToolError`. */
  abstract execute(input: Input, context: ToolContext): Promise<ToolOutput>;

  /** The JSON Schema the model sees. */
  jsonSchema(): Record<string, unknown> {
    this.schema ??= z.toJSONSchema(this.inputSchema, { io: 'input', unrepresentable: 'any' });
    return this.schema;
  }

  /** Reading tools are read-only in every mode (SPEC section 6, step 3). */
  isReadOnly(_input: Input): boolean {
    return this.reads;
  }

  /** Reading tools may run beside others; writing tools one at a time. */
  isConcurrencySafe(_input: Input): boolean {
    return this.reads;
  }

  /** Local tools have no external results to check. */
  checkResultMetadata(): string | undefined {
    return undefined;
  }

  /**
   * What a reading tool's reads need: a safety ask for a secret (by name,
   * place or private key header), an ask for a path outside the working
   * directories (symlinks resolved), else nothing. A directory tree the tool
   * walks is not searched for secrets here: the walk leaves them out.
   */
  checkReads(input: Input, context: PermissionContext): PermissionDecision | undefined {
    if (!this.reads) return undefined;
    const read = this.readPath(input);
    const findings = findReadProblems(
      read === undefined ? [] : [read],
      read === undefined ? [this.pathOf(input)] : [],
      workingDirectories(context, this.cwd),
      homedir(),
    );
    return readsDecision(this.name, findings);
  }

  /** A writing tool's own check (dangerous paths, edit modes); reading tools pass through. */
  checkPermissions(input: Input, context: PermissionContext): PermissionDecision {
    if (this.reads) return { behavior: 'passthrough', message: '' };
    return checkFileChange(this.name, this.target(input), context, this.cwd);
  }

  /** A glob rule on the absolute, normalized, symlink-resolved path. */
  matchRule(ruleContent: string | null, input: Input): boolean {
    if (ruleContent === null) return true;
    return matchesFileRule(ruleContent, this.target(input).real, this.cwd);
  }

  /** `{dir}/**` for the directory of the target. */
  suggestRules(input: Input): PermissionRule[] {
    return [suggestFileRule(this.name, this.target(input), this.targetsDirectory)];
  }

  /**
   * The path a reading tool reads: the target, a whole tree for the tools
   * that search a directory; undefined when it cannot be known before running.
   */
  protected readPath(input: Input): ReadPath | undefined {
    const target = this.target(input);
    return { ...target, recursive: this.targetsDirectory && isDirectory(target.real) };
  }

  /** The target of the input, absolute and symlink-resolved. */
  protected target(input: Input): FileTarget {
    return fileTarget(this.cwd, this.pathOf(input));
  }
}

/** Whether the path is a directory now (a missing path is not). */
function isDirectory(real: string): boolean {
  return statSync(real, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
