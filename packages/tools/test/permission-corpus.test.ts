import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine } from '@parley/core';
import type { AnyTool, PermissionDecision, PermissionRule } from '@parley/core';
import { Bash, Edit, Glob, Grep, Read, Write } from '../src/index.js';
import { createSandbox, loadCorpus, type BashCase, type FileCase, type Sandbox } from './corpus.js';

const corpus = loadCorpus();
let sandbox: Sandbox;
let bash: Bash;

beforeAll(async () => {
  sandbox = createSandbox();
  bash = new Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  // Warm the grammar so every case is decided on a real parse.
  await bash.checkPermissions({ command: 'true' }, new PermissionEngine().context);
});
afterAll(() => sandbox.remove());

function engineFor(
  entry: BashCase | FileCase,
  deny: PermissionRule[],
  ask: PermissionRule[],
): PermissionEngine {
  const allow = 'allow' in entry ? entry.allow : undefined;
  const base = sandbox.allowRules(entry.fileRules ?? true);
  return new PermissionEngine({
    mode: entry.mode ?? 'default',
    workingDirectories: [sandbox.project],
    allowRules:
      allow === undefined
        ? base
        : [
            ...base.filter((rule) => rule.toolName !== 'Bash'),
            ...allow.map((content) => bashRule('allow', content)),
          ],
    denyRules: deny,
    askRules: ask,
  });
}

type FileRule = { toolName: string; ruleContent: string };

const bashRule = (behavior: PermissionRule['behavior'], ruleContent: string): PermissionRule => ({
  toolName: 'Bash',
  ruleContent,
  behavior,
  source: 'corpus',
});

/** What is wrong with a decision, or undefined when it is as the corpus says. */
function mismatch(entry: BashCase | FileCase, decision: PermissionDecision): string | undefined {
  if (decision.behavior !== entry.expect)
    return `expected ${entry.expect}, got ${decision.behavior}`;
  if (entry.safety !== undefined && (decision.bypassImmune === true) !== entry.safety) {
    return `expected ${entry.safety ? '' : 'no '}safety ask, got ${decision.decisionReason ?? decision.message}`;
  }
  const suggests = 'suggests' in entry ? entry.suggests : undefined;
  const suggested = (decision.suggestedRules ?? [])
    .filter((rule) => rule.toolName === 'Bash')
    .map((rule) => rule.ruleContent);
  if (suggests !== undefined && JSON.stringify(suggested) !== JSON.stringify(suggests))
    return `expected suggestions ${JSON.stringify(suggests)}, got ${JSON.stringify(suggested)}`;
  return undefined;
}

/** Adding every suggested rule must allow the very call that asked (SPEC 7, "Parley adds"). */
async function suggestionProblem(
  engine: PermissionEngine,
  tool: AnyTool,
  input: unknown,
  decision: PermissionDecision,
): Promise<string | undefined> {
  const suggested = decision.suggestedRules ?? [];
  if (decision.behavior !== 'ask' || suggested.length === 0) return undefined;
  const trial = new PermissionEngine({
    ...engine.context,
    allowRules: [...engine.context.allowRules, ...suggested],
  });
  const after = await trial.check(tool, input);
  return after.behavior === 'allow'
    ? undefined
    : `suggestions ${JSON.stringify(suggested.map((rule) => `${rule.toolName}(${rule.ruleContent})`))} do not allow it (${after.behavior})`;
}

describe('adversarial permission corpus', () => {
  it('has at least 150 shell commands', () => {
    expect(corpus.bash.length).toBeGreaterThanOrEqual(150);
  });

  it('gives every shell command the decision the corpus names, with suggestions that work', async () => {
    const problems: string[] = [];
    for (const entry of corpus.bash) {
      const command = sandbox.place(entry.command);
      const placed = (behavior: PermissionRule['behavior']) => (rule: FileRule) => ({
        ...rule,
        ruleContent: sandbox.place(rule.ruleContent),
        behavior,
        source: 'corpus',
      });
      const engine = engineFor(
        entry,
        [
          ...(entry.deny ?? []).map((content) => bashRule('deny', content)),
          ...(entry.fileDeny ?? []).map(placed('deny')),
        ],
        [
          ...(entry.ask ?? []).map((content) => bashRule('ask', content)),
          ...(entry.fileAsk ?? []).map(placed('ask')),
        ],
      );
      const input = { command };
      const decision = await engine.check(bash, input);
      const own = await bash.checkPermissions(input, engine.context);
      const asked = decision.behavior === 'ask';
      if (
        asked &&
        (own.suggestedRules ?? []).length > 0 &&
        (decision.suggestedRules ?? []).length === 0
      ) {
        problems.push(
          `${JSON.stringify(entry.command)}: the engine dropped the suggestions ${JSON.stringify(own.suggestedRules)}`,
        );
      }
      const problem =
        mismatch(entry, decision) ?? (await suggestionProblem(engine, bash, input, decision));
      if (problem !== undefined) {
        problems.push(
          `${JSON.stringify(entry.command)} [${entry.mode ?? 'default'}] ${problem} — ${entry.why} (${decision.decisionReason ?? ''})`,
        );
      }
    }
    if (problems.length > 0) console.log(`${problems.length} mismatches:\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
  });

  it('gives every file-tool call the decision the corpus names', async () => {
    const tools: Record<FileCase['tool'], AnyTool> = {
      Read: new Read({ cwd: sandbox.project }),
      Write: new Write({ cwd: sandbox.project }),
      Edit: new Edit({ cwd: sandbox.project }),
      Glob: new Glob({ cwd: sandbox.project }),
      Grep: new Grep({ cwd: sandbox.project }),
    };
    const problems: string[] = [];
    for (const entry of corpus.files) {
      const tool = tools[entry.tool];
      const raw = Object.fromEntries(
        Object.entries(entry.input).map(([key, value]) => [
          key,
          typeof value === 'string' ? sandbox.place(value) : value,
        ]),
      );
      const input: unknown = tool.inputSchema.parse(raw);
      const deny = (entry.deny ?? []).map((rule) => ({
        ...rule,
        ruleContent: sandbox.place(rule.ruleContent),
        behavior: 'deny' as const,
        source: 'corpus',
      }));
      const engine = engineFor(entry, deny, []);
      const decision = await engine.check(tool, input);
      const problem =
        mismatch(entry, decision) ?? (await suggestionProblem(engine, tool, input, decision));
      if (problem !== undefined)
        problems.push(
          `${entry.tool} ${JSON.stringify(entry.input)} [${entry.mode ?? 'default'}] ${problem} — ${entry.why}`,
        );
    }
    if (problems.length > 0) console.log(`${problems.length} mismatches:\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
  });
});
