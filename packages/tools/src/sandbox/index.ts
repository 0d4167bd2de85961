/**
 * `@parley/tools/sandbox`: the sandbox both the Bash tool and `@parley/mcp`'s
 * stdio servers run in (ADR tools-0007, section 13). The policy type, the
 * bubblewrap arguments that enforce it, and the walk that finds the secrets
 * to mask, without the rest of the tools: nothing here reaches the command
 * analysis, tree-sitter or the tools themselves (`entry-imports.test.ts`).
 */
export { bubblewrapArguments, bubblewrapProblem } from '../bash/sandbox/bubblewrap.js';
export type { FileMasking } from '../bash/sandbox/bubblewrap.js';
export { existing, protectedPaths, SecretFinder } from '../bash/sandbox/masks.js';
export type { SandboxPolicy } from '../bash/sandbox/policy-types.js';
