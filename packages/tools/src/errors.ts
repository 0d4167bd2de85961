import { ParleyError } from '@parley/core';

/** Why a file tool refused or failed; stable, for programs to switch on. */
export type FileToolErrorCode =
  | 'file_not_found'
  | 'not_a_file'
  | 'not_a_directory'
  | 'binary_file'
  | 'file_too_large'
  | 'string_not_found'
  | 'string_not_unique'
  | 'no_change'
  | 'invalid_pattern';

/**
 * A file tool could not do what was asked (a missing file, an ambiguous edit,
 * a binary file). The agent turns a thrown error into an `error` result whose
 * text is the message, so messages are written for the model to act on.
 */
export class FileToolError extends ParleyError {
  override readonly code: FileToolErrorCode;
  /** The absolute path the tool worked on. */
  readonly path: string;

  constructor(code: FileToolErrorCode, path: string, message: string) {
    super(code, message);
    this.code = code;
    this.path = path;
  }
}

/**
 * The bash grammar could not be loaded, so commands cannot be analysed. Bash
 * then asks for every command that is not plainly simple (fail closed).
 */
export class CommandAnalysisError extends ParleyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('command_analysis_unavailable', message, options);
  }
}

/**
 * The Bash tool's `sandbox` option is `required` and the machine has no
 * sandbox (no bubblewrap, no user namespaces, not Linux). The message says
 * how to install bubblewrap.
 */
export class SandboxUnavailableError extends ParleyError {
  constructor(message: string) {
    super('sandbox_unavailable', message);
  }
}
