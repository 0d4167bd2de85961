import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermissionEngine } from '@parley/core';
import type { AnyTool, PermissionMode, PermissionRule } from '@parley/core';
import { Bash, Glob, Grep, Read } from '../src/index.js';
import { createSandbox, type Sandbox } from './corpus.js';

// The read corpus (fixtures/read-corpus.json, ADR tools-0006): reads that
// must ask (secrets, in and out of the project; reads outside the working
// directories) and ordinary project reads that must stay allowed. Paths are
// written `/project`, `/outside` and `/fakehome` (Bash's HOME) and placed in
// the sandbox of the permission corpus, with a few more files added here.

const entry = z.object({
  tool: z.enum(['Bash', 'Read', 'Glob', 'Grep']),
  input: z.record(z.string(), z.unknown()),
  expect: z.enum(['allow', 'ask']),
  safety: z.boolean().optional(),
  why: z.string(),
});
type ReadCase = z.output<typeof entry>;
const corpus: ReadCase[] = z
  .object({ reads: z.array(entry) })
  .parse(
    JSON.parse(
      readFileSync(path.join(import.meta.dirname, 'fixtures', 'read-corpus.json'), 'utf8'),
    ),
  ).reads;

const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n';

let sandbox: Sandbox;
let tools: Record<ReadCase['tool'], AnyTool>;

beforeAll(async () => {
  sandbox = createSandbox();
  const { project, home } = sandbox;
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  write(path.join(home, '.ssh', 'id_rsa'), PRIVATE_KEY);
  write(path.join(home, '.aws', 'credentials'), '[default]\n');
  write(path.join(home, '.bash_history'), 'ls\n');
  write(path.join(home, 'notes', 'todo.md'), 'a\n');
  write(path.join(project, '.env.example'), 'TOKEN=\n');
  write(path.join(project, 'config', 'server.pem'), 'a\n');
  write(path.join(project, 'data', 'dump.txt'), `notes\n${PRIVATE_KEY}`);
  write(path.join(project, 'secrets', 'x.txt'), 'a\n');
  symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(project, 'link-key'));
  const bash = new Bash({ cwd: project, env: { HOME: home } });
  tools = {
    Bash: bash,
    Read: new Read({ cwd: project }),
    Glob: new Glob({ cwd: project }),
    Grep: new Grep({ cwd: project }),
  };
  // Warm the grammar so every case is decided on a real parse.
  await bash.checkPermissions({ command: 'true' }, new PermissionEngine().context);
});
afterAll(() => sandbox.remove());

const engineFor = (mode: PermissionMode, allowRules: PermissionRule[] = []): PermissionEngine =>
  new PermissionEngine({ mode, workingDirectories: [sandbox.project], allowRules });

/** The input with the fixture's placeholder paths replaced by the sandbox's. */
function placed(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      typeof value === 'string' ? sandbox.place(value) : value,
    ]),
  );
}

const label = (item: ReadCase): string => `${item.tool} ${JSON.stringify(item.input)}`;

/** What is wrong with the decisions for one case in every mode, or an empty list. */
async function problemsOf(item: ReadCase): Promise<string[]> {
  const tool = tools[item.tool];
  const input = placed(item.input);
  const decide = (mode: PermissionMode, rules?: PermissionRule[]) =>
    engineFor(mode, rules).check(tool, input);
  const problems: string[] = [];
  const first = await decide('default');
  const reason = first.decisionReason ?? '';
  if (first.behavior !== item.expect) {
    return [`expected ${item.expect}, got ${first.behavior} (${reason})`];
  }
  if (item.expect === 'allow') {
    const explore = await decide('explore');
    if (explore.behavior !== 'allow') problems.push(`explore: got ${explore.behavior}`);
    return problems;
  }
  const safety = item.safety === true;
  if ((first.bypassImmune === true) !== safety) {
    problems.push(`expected ${safety ? '' : 'no '}safety ask, got ${reason}`);
  }
  const expectedReason = safety ? 'reads a secret' : 'outside the working directories';
  if (!reason.includes(expectedReason))
    problems.push(`reason lacks "${expectedReason}": ${reason}`);
  const everything: PermissionRule = {
    toolName: item.tool,
    ruleContent: null,
    behavior: 'allow',
    source: 'test',
  };
  const expected: [PermissionMode, PermissionRule[], string][] = [
    ['explore', [], 'deny'],
    ['dont_ask', [], 'deny'],
    ['bypass', [], safety ? 'ask' : 'allow'],
    ['accept_edits', [], 'ask'],
    ['default', [everything], safety ? 'ask' : 'allow'],
  ];
  for (const [mode, rules, behavior] of expected) {
    const decision = await decide(mode, rules);
    if (decision.behavior !== behavior) {
      problems.push(`${mode}${rules.length > 0 ? ' + allow rule' : ''}: got ${decision.behavior}`);
    }
  }
  const suggested = first.suggestedRules ?? [];
  if (safety && suggested.length > 0) problems.push('a secret read offered a suggestion');
  if (suggested.length > 0 && (await decide('default', suggested)).behavior !== 'allow') {
    problems.push(`suggestions do not clear the ask: ${JSON.stringify(suggested)}`);
  }
  return problems;
}

describe('the read corpus (ADR tools-0006)', () => {
  it('holds reads that must ask and reads that must stay allowed', () => {
    const asks = corpus.filter((item) => item.expect === 'ask');
    expect(asks.filter((item) => item.safety === true).length).toBeGreaterThanOrEqual(60);
    expect(asks.filter((item) => item.safety !== true).length).toBeGreaterThanOrEqual(25);
    expect(corpus.filter((item) => item.expect === 'allow').length).toBeGreaterThanOrEqual(40);
  });

  it('asks for every read that must ask, in every mode as SPEC 6 says, and allows the rest', async () => {
    const problems: string[] = [];
    for (const item of corpus) {
      const found = await problemsOf(item);
      problems.push(...found.map((problem) => `${label(item)} — ${item.why}: ${problem}`));
    }
    expect(problems).toEqual([]);
  });

  it('suggests the narrowest directory for a read outside, and the suggestion clears it', async () => {
    const decision = await engineFor('default').check(tools.Bash, {
      command: `cat ${sandbox.home}/notes/todo.md`,
    });
    expect(decision.suggestedRules).toEqual([
      {
        toolName: 'Read',
        ruleContent: `${sandbox.home}/notes/**`,
        behavior: 'allow',
        source: 'suggested',
      },
    ]);
    const read = await engineFor('default').check(tools.Read, {
      file_path: `${sandbox.home}/notes/todo.md`,
    });
    expect(read.suggestedRules).toEqual(decision.suggestedRules);
  });
});
