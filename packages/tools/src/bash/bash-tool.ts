import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { permissionMessages } from '@parley/core';
import type {
  PermissionContext,
  PermissionDecision,
  PermissionRule,
  Tool,
  ToolChunk,
  ToolContext,
} from '@parley/core';
import { analyseCommandLine, analyseCommandLineAsync, type CommandAnalysis } from './analysis.js';
import { loadBashParser } from './parser.js';
import { loadSecondParser } from './second-parser.js';
import { decideBash, readRuleDecision } from './permissions.js';
import { judgeBashReads, readsStayInside } from './read-paths.js';
import { readsDecision } from '../shared/read-access.js';
import { bashRuleMatches } from './rules.js';
import { SecretFinder } from './sandbox/masks.js';
import type { SandboxKind, SandboxOptions, SandboxSetting } from './sandbox/policy-types.js';
import { CommandSandbox } from './sandbox/sandbox.js';
import { runSandboxed } from './sandbox/sandboxed-run.js';
import { autoAllowed } from './sandbox/auto-allow.js';
import { resolveTargets } from './target-paths.js';
import { workingDirectories } from '../shared/paths.js';
import { uncoveredCommands } from './coverage.js';
import { prefixRules } from './suggestions.js';

/** Options of the Bash tool. */
export type BashOptions = {
  /** Where commands run; also a working directory. Default `process.cwd()`. */
  cwd?: string;
  /** Default time limit of a command in milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Variables added to (or overriding) the environment of `process.env`. */
  env?: Record<string, string>;
  /**
   * The OS sandbox every command runs in (ADR tools-0007): a setting
   * (`auto`, the default; `required`; `off`) or the full options.
   */
  sandbox?: SandboxSetting | SandboxOptions;
};

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const HEAD_CHARS = 20_000;
const TAIL_CHARS = 10_000;
const KILL_GRACE_MS = 2_000;

const bashInput = z.object({
  command: z.string().min(1).describe('The shell command to run (bash).'),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Time limit in milliseconds (at most ${MAX_TIMEOUT_MS}).`),
  description: z
    .string()
    .optional()
    .describe('What the command does, in a few words, for the person watching.'),
  sandbox: z
    .boolean()
    .optional()
    .describe(
      'false runs the command outside the sandbox; that always asks the person. Only for a command the sandbox blocked.',
    ),
});

/** The input of `Bash`. */
export type BashInput = z.output<typeof bashInput>;

/**
 * Runs shell commands. Permission answers come from a real parse of the
 * command (tree-sitter-bash): sub-commands are matched against rules one by
 * one, read-only lines are allowed, substitutions, dangerous commands and
 * dangerous targets are safety asks (SPEC sections 6 and 7).
 *
 * Every line is also parsed by a second, independent parser (mvdan/sh); a
 * line the two read differently is a safety ask (ADR tools-0004).
 *
 * The grammar and the second parser load in the background when the tool is
 * made. Until the grammar has loaded, the synchronous questions (`isReadOnly`, `matchRule`) can only
 * read a plain single command; for anything else `isReadOnly` says no and
 * `matchRule` says yes if the rule matches any piece of the text, which only
 * ever makes a deny or ask rule stricter — the engine matches allow rules
 * after `checkPermissions`, which waits for the grammar.
 */
export class Bash implements Tool<BashInput> {
  readonly name = 'Bash';
  readonly description = [
    'Runs a bash command and returns its output (stdout and stderr together) and exit code.',
    'Each call starts in the working directory; cd does not carry over to the next call.',
    'Quote paths with spaces. Prefer Read, Write, Edit, Glob and Grep for files.',
    `Long output is cut in the middle. Commands stop after ${DEFAULT_TIMEOUT_MS / 1000} s unless timeout is given.`,
    'Commands run in a sandbox: read-only commands cannot write or use the network, others write only in the working directories;',
    "secrets read as empty. The sandbox has its own PID namespace, so ps and pgrep see only the command's own processes.",
  ].join(' ');
  readonly inputSchema = bashInput;
  readonly external = false;
  readonly idempotent = false;
  /** Where commands run. */
  readonly cwd: string;
  private readonly timeoutMs: number;
  private readonly env: Record<string, string>;
  private readonly sandbox: CommandSandbox;
  private readonly secrets = new SecretFinder();
  private bareWarned = false;
  private schema: Record<string, unknown> | undefined;

  constructor(options: BashOptions = {}) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.env = { ...options.env };
    const sandbox = options.sandbox ?? 'auto';
    this.sandbox = new CommandSandbox(typeof sandbox === 'string' ? { mode: sandbox } : sandbox);
    loadBashParser().catch(() => undefined);
    loadSecondParser().catch(() => undefined);
  }

  /** The JSON Schema the model sees. */
  jsonSchema(): Record<string, unknown> {
    this.schema ??= z.toJSONSchema(this.inputSchema, { io: 'input', unrepresentable: 'any' });
    return this.schema;
  }

  /**
   * The sandbox commands run in here: `bubblewrap`, or `none` when the
   * option is `off` or the machine has none (then commands run bare). The
   * first call probes the machine (a few milliseconds), once per process.
   */
  get sandboxKind(): SandboxKind {
    return this.sandbox.kind();
  }

  /** Read-only lines (SPEC section 7) are allowed in every mode; never one asked to run outside the sandbox. */
  isReadOnly(input: BashInput): boolean {
    if (input.sandbox === false) return false;
    return analyseCommandLine(input.command)?.readOnly ?? false;
  }

  /**
   * What a read-only line's reads need (SPEC section 6, Parley adds): what
   * `Read` deny and ask rules say of the paths it reads, a safety ask for a secret, an ask for a path outside the working
   * directories, else nothing. A line that cannot be analysed is not
   * read-only, so it never gets here.
   */
  async checkReads(
    input: BashInput,
    context: PermissionContext,
  ): Promise<PermissionDecision | undefined> {
    const analysis = await analyseCommandLineAsync(input.command);
    const location = this.location();
    const reads = await judgeBashReads(analysis, context, location);
    const byRule = readRuleDecision(reads, context, location.cwd);
    if (byRule !== undefined) return byRule;
    return readsDecision(this.name, {
      secrets: reads.secrets,
      outside: reads.outside.map((read) => read.shown),
    });
  }

  /** Read-only commands may run beside other calls. */
  isConcurrencySafe(input: BashInput): boolean {
    return this.isReadOnly(input);
  }

  /** Local tool: no external results. */
  checkResultMetadata(): string | undefined {
    return undefined;
  }

  /**
   * Whether one rule matches the call. For a line that only reads inside
   * the cwd, a rule matches if it matches any command (so a deny or ask rule
   * on `cat` holds inside `cat x | wc`; allowing is moot, reads are allowed
   * anyway). For any other line, only if it matches every sub-command and
   * nothing is written or read elsewhere, so a single allow rule never allows
   * more than `checkPermissions` would (reads outside take a `Read` rule).
   * Deny and ask rules matching only some sub-commands are applied by
   * `checkPermissions`.
   */
  matchRule(ruleContent: string | null, input: BashInput): boolean {
    if (ruleContent === null) return true;
    // Outside the sandbox no rule stands for the call; deny and ask rules still hold in `checkPermissions`.
    if (input.sandbox === false) return false;
    const analysis = analyseCommandLine(input.command);
    if (analysis === undefined) return matchesAnyFragment(ruleContent, input.command);
    const readsInside = readsStayInside(analysis, this.location());
    if (analysis.readOnly && readsInside) {
      return analysis.all.some((command) =>
        command.matchTexts.some((text) => bashRuleMatches(ruleContent, text)),
      );
    }
    if (analysis.safety.length > 0 || analysis.targets.length > 0 || !readsInside) return false;
    return (
      analysis.parts.length > 0 &&
      analysis.parts.every((part) => bashRuleMatches(ruleContent, part.text))
    );
  }

  /** The own check: deny/ask rules on any sub-command, safety asks, rules per sub-command, edit modes. */
  async checkPermissions(
    input: BashInput,
    context: PermissionContext,
  ): Promise<PermissionDecision> {
    let analysis: CommandAnalysis;
    try {
      analysis = await analyseCommandLineAsync(input.command);
    } catch (error) {
      return {
        behavior: 'ask',
        message: permissionMessages.ask(this.name),
        decisionReason: `Safety: the command cannot be analysed (${error instanceof Error ? error.message : String(error)})`,
        bypassImmune: true,
      };
    }
    const location = this.location();
    const reads = await judgeBashReads(analysis, context, location);
    const decision = decideBash(analysis, context, location, reads);
    if (
      input.sandbox !== false &&
      decision.behavior === 'ask' &&
      decision.matchedRule === undefined &&
      this.sandbox.autoAllows()
    ) {
      const resolved = resolveTargets(analysis, location);
      const directories = workingDirectories(context, location.cwd);
      return autoAllowed({ analysis, resolved, reads, directories, location }) ?? decision;
    }
    if (input.sandbox !== false || decision.behavior === 'deny' || decision.bypassImmune === true) {
      return decision;
    }
    // Outside the sandbox: always an ask, that only bypass mode skips.
    return {
      behavior: 'ask',
      message: permissionMessages.ask(this.name),
      decisionReason: 'Runs outside the sandbox (sandbox: false)',
    };
  }

  /** One `{command} {subcommand}:*` rule per sub-command that is not read-only (for `time npm test`, the inner `npm test`). */
  suggestRules(input: BashInput): PermissionRule[] {
    const analysis = analyseCommandLine(input.command);
    if (analysis === undefined || analysis.safety.length > 0) return [];
    return prefixRules(analysis.parts.flatMap((part) => uncoveredCommands(part, [], 'default')));
  }

  /**
   * Runs the command in the sandbox its analysis calls for (outside it
   * for `sandbox: false`), streaming its output. With the option `auto` and
   * no sandbox here, it runs bare and warns once through the logger; with
   * `required` it throws `SandboxUnavailableError`.
   */
  execute(input: BashInput, context: ToolContext): AsyncIterable<ToolChunk> {
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.env };
    delete env.CDPATH;
    return runSandboxed({
      run: {
        command: input.command,
        cwd: this.cwd,
        env,
        timeoutMs: Math.min(input.timeout ?? this.timeoutMs, MAX_TIMEOUT_MS),
        signal: context.signal,
        headChars: HEAD_CHARS,
        tailChars: TAIL_CHARS,
        killGraceMs: KILL_GRACE_MS,
      },
      outside: input.sandbox === false,
      context,
      location: this.location(),
      sandbox: this.sandbox,
      secrets: this.secrets,
      onBare: (reason) => {
        if (this.bareWarned) return;
        this.bareWarned = true;
        context.logger.warn(`Bash runs commands without a sandbox: ${reason}`);
      },
    });
  }

  private location(): { cwd: string; home: string } {
    return { cwd: this.cwd, home: this.home() };
  }

  private home(): string {
    return this.env.HOME ?? process.env.HOME ?? homedir();
  }
}

/**
 * Before the grammar has loaded: whether the rule matches the whole line or
 * any piece of it between shell operators, also without leading assignments
 * and with a program path reduced to its name. Errs towards matching.
 */
function matchesAnyFragment(ruleContent: string, command: string): boolean {
  const fragments = [command, ...command.split(/[;&|\n()`$<>{}]+/)]
    .map((fragment) => fragment.trim().replace(/\s+/g, ' '))
    .filter((fragment) => fragment !== '');
  return fragments.some((fragment) => {
    const withoutAssignments = fragment.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, '');
    const bareProgram = withoutAssignments.replace(/^\S*\//, '');
    const unquoted = bareProgram.replace(/["'\\]/g, '');
    return [fragment, withoutAssignments, bareProgram, unquoted].some((text) =>
      bashRuleMatches(ruleContent, text),
    );
  });
}
