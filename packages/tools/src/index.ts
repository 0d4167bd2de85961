/**
 * @parley/tools: the built-in system tools (Bash, Read, Write, Edit, Glob,
 * Grep). Each implements `Tool` from `@parley/core`, with its own permission
 * semantics (SPEC sections 6 and 7).
 */
export { Read } from './files/read-tool.js';
export type { ReadInput } from './files/read-tool.js';
export { Write } from './files/write-tool.js';
export type { WriteInput } from './files/write-tool.js';
export { Edit } from './files/edit-tool.js';
export type { EditInput } from './files/edit-tool.js';
export { Glob } from './files/glob-tool.js';
export type { GlobInput } from './files/glob-tool.js';
export { Grep } from './files/grep-tool.js';
export type { GrepInput } from './files/grep-tool.js';
export type { FileToolOptions } from './files/file-tool.js';
export { CommandAnalysisError, FileToolError, SandboxUnavailableError } from './errors.js';
export type { FileToolErrorCode } from './errors.js';
export { Bash } from './bash/bash-tool.js';
export type { BashInput, BashOptions } from './bash/bash-tool.js';
export type { SandboxKind, SandboxOptions, SandboxSetting } from './bash/sandbox/policy-types.js';
export type { SandboxMetadata } from './bash/sandbox/sandboxed-run.js';
