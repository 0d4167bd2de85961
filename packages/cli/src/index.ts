/**
 * `parley`: the command-line console. The command is the product; this
 * entry exposes its option parsing for programs that wrap it.
 */
export { parseCommandLine, permissionModes, usage, UsageError } from './args.js';
export type { ChatArgs, Command } from './args.js';
