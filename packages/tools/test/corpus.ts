import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PermissionEngine, type PermissionRule } from '@parley/core';

/**
 * The adversarial permission corpus (fixtures/permission-corpus.json) and
 * the sandbox it runs in: a project directory with a symlink leading out, a
 * directory outside it and a fake home. Paths in the fixture are written as
 * `/project`, `/outside` and `/fakehome` and replaced by the sandbox's.
 */

const mode = z.enum(['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']);
const expectation = {
  expect: z.enum(['allow', 'deny', 'ask']),
  safety: z.boolean().optional(),
  mode: mode.optional(),
  fileRules: z.boolean().optional(),
  why: z.string(),
};
const bashEntry = z.object({
  command: z.string(),
  deny: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  /** Deny and ask rules of other tools (`Read(/outside/**)`), placed like the command. */
  fileDeny: z.array(z.object({ toolName: z.string(), ruleContent: z.string() })).optional(),
  fileAsk: z.array(z.object({ toolName: z.string(), ruleContent: z.string() })).optional(),
  /** Bash allow rules used instead of the sandbox's (`git:*`, `npm run:*`, `ls:*`, `cat:*`). */
  allow: z.array(z.string()).optional(),
  /** The exact Bash rules suggested with the ask (none at all: `[]`). */
  suggests: z.array(z.string()).optional(),
  /** The issue #10 class a case belongs to (`2-redirect` … `6-suggestion`), or `control` for a harmless command. */
  class: z.string().optional(),
  ...expectation,
});
const fileEntry = z.object({
  tool: z.enum(['Read', 'Write', 'Edit', 'Glob', 'Grep']),
  input: z.record(z.string(), z.unknown()),
  deny: z.array(z.object({ toolName: z.string(), ruleContent: z.string() })).optional(),
  ...expectation,
});
const corpus = z.object({ bash: z.array(bashEntry), files: z.array(fileEntry) });

/** One shell command of the corpus and the decision it must get. */
export type BashCase = z.output<typeof bashEntry>;
/** One file-tool call of the corpus and the decision it must get. */
export type FileCase = z.output<typeof fileEntry>;

/** Reads and checks the fixture. */
export function loadCorpus(): { bash: BashCase[]; files: FileCase[] } {
  const file = path.join(import.meta.dirname, 'fixtures', 'permission-corpus.json');
  return corpus.parse(JSON.parse(readFileSync(file, 'utf8')));
}

const ordinaryEntry = z.object({
  command: z.string(),
  class: z.string(),
  /** Why the analysis still asks for this harmless command (a false ask not yet fixed). */
  knownAsk: z.string().optional(),
});
/** One command of the ordinary-command corpus (fixtures/ordinary-corpus.json): harmless, must not ask. */
export type OrdinaryCase = z.output<typeof ordinaryEntry>;

/** Reads and checks the ordinary-command corpus. */
export function loadOrdinaryCorpus(): OrdinaryCase[] {
  const file = path.join(import.meta.dirname, 'fixtures', 'ordinary-corpus.json');
  return z
    .object({ ordinary: z.array(ordinaryEntry) })
    .parse(JSON.parse(readFileSync(file, 'utf8'))).ordinary;
}

/** A throw-away directory tree for the corpus. */
export type Sandbox = {
  project: string;
  outside: string;
  home: string;
  /** Replaces the fixture's `/project`, `/outside` and `/fakehome` with the sandbox paths. */
  place(text: string): string;
  /** The rules every case starts with: Bash `git:*`, `npm run:*`, `ls:*`, `cat:*`, and Write/Edit `/project/**`. */
  allowRules(fileRules: boolean): PermissionRule[];
  remove(): void;
};

/** Makes the sandbox under the system temp directory. */
export function createSandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'parley-corpus-')));
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  for (const dir of ['src', 'docs', 'scripts', 'secrets', '.git/hooks', '.vscode']) {
    mkdirSync(path.join(project, dir), { recursive: true });
  }
  mkdirSync(outside, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(project, 'README.md'), 'TODO: a\n');
  writeFileSync(path.join(project, 'notes.txt'), 'a\n');
  writeFileSync(path.join(project, 'src', 'index.ts'), 'a\n');
  writeFileSync(path.join(project, 'scripts', 'run.sh'), 'echo a\n');
  writeFileSync(path.join(project, '.env'), 'SECRET=a\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'a\n');
  writeFileSync(path.join(home, '.bashrc'), '# a\n');
  symlinkSync(outside, path.join(project, 'link-out'));
  symlinkSync(path.join(project, 'secrets'), path.join(project, 'link-secrets'));
  // A link a cloned repository may hold: the shell resolves it in its own process.
  symlinkSync('/proc/self/cwd', path.join(project, 'link-proc'));
  const place = (text: string): string =>
    text.replace(
      /(^|[\s'"=@:>(])\/(project|outside|fakehome)(?=$|[/\s'"])/g,
      (_, before: string, name: string) => {
        const target = name === 'project' ? project : name === 'outside' ? outside : home;
        return before + target;
      },
    );
  const rule = (toolName: string, ruleContent: string): PermissionRule => ({
    toolName,
    ruleContent,
    behavior: 'allow',
    source: 'corpus',
  });
  return {
    project,
    outside,
    home,
    place,
    allowRules: (fileRules) => [
      rule('Bash', 'git:*'),
      rule('Bash', 'npm run:*'),
      rule('Bash', 'ls:*'),
      rule('Bash', 'cat:*'),
      ...(fileRules ? [rule('Write', `${project}/**`), rule('Edit', `${project}/**`)] : []),
    ],
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The engine a corpus case is decided by: its mode (default `default`),
 * the sandbox's allow rules (its own Bash allow rules instead, when it
 * gives some), and its deny and ask rules.
 */
export function corpusEngine(sandbox: Sandbox, entry: BashCase): PermissionEngine {
  const rule = (behavior: PermissionRule['behavior'], ruleContent: string): PermissionRule => ({
    toolName: 'Bash',
    ruleContent,
    behavior,
    source: 'corpus',
  });
  const base = sandbox.allowRules(entry.fileRules ?? true);
  const allow =
    entry.allow === undefined
      ? base
      : [
          ...base.filter((item) => item.toolName !== 'Bash'),
          ...entry.allow.map((content) => rule('allow', content)),
        ];
  return new PermissionEngine({
    mode: entry.mode ?? 'default',
    workingDirectories: [sandbox.project],
    allowRules: allow,
    denyRules: (entry.deny ?? []).map((content) => rule('deny', content)),
    askRules: (entry.ask ?? []).map((content) => rule('ask', content)),
  });
}
