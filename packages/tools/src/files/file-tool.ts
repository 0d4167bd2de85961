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

/** Options shared by the file tools. */
export type FileToolOptions = {
  /** Where relative paths are read from; also a working directory. Default `process.cwd()`. */
  cwd?: string;
};

/**
 * What the file tools share: a path input resolved against `cwd`, glob rules
 * matched on the symlink-resolved absolute path (SPEC section 7), `{dir}/**`
 * suggestions, and the write check of `checkFileChange` for tools that change
 * files. Reading tools are read-only, so the engine allows them at step 3.
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

  /** The target of the input, absolute and symlink-resolved. */
  protected target(input: Input): FileTarget {
    return fileTarget(this.cwd, this.pathOf(input));
  }
}
