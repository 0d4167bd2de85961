/**
 * Command-line edits the analysis now allows (issue 45, ADR tools-0008),
 * run for real under the execution oracle's strace: each is allowed in
 * `accept_edits` with the project as working directory, and when run it
 * changes exactly the files it names (and their backups), writes nowhere
 * but their folders (sed's and perl's temporary files are renamed over the
 * originals), connects nowhere and runs no program but its own. Needs
 * strace and a network namespace, as the oracle does; outside CI it skips
 * with the reason.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionEngine } from '@parley/core';
import { Bash } from '../src/index.js';
import { execute, standaloneWorker, type OracleWorker } from './oracle/oracle.js';
import { oracleIsolation } from './oracle/traced-run.js';

const oracle = oracleIsolation('command-line edits under strace');

/** An edit, the program it runs, the folder it may write in, and what it must change. */
const EDITS: { command: string; program: string; folder: string; changes: string[] }[] = [
  {
    command: 'sed -i s/beta/BETA/ notes.txt',
    program: 'sed',
    folder: '/project',
    changes: ['changed project/notes.txt'],
  },
  {
    command: "sed -i.bak -e 's/foo/FOO/g' -e 's/bar/BAR/' README.md",
    program: 'sed',
    folder: '/project',
    changes: ['changed project/README.md', 'added project/README.md.bak'],
  },
  {
    command: "sed -i -E 's/(apple|pear),/\\1;/' data.csv src/index.ts",
    program: 'sed',
    folder: '/project',
    changes: ['changed project/data.csv', 'changed project/src/index.ts'],
  },
  {
    command: "perl -pi -e 's/alpha/ALPHA/; tr/a-z/A-Z/' notes.txt",
    program: 'perl',
    folder: '/project',
    changes: ['changed project/notes.txt'],
  },
  {
    command: "perl -i.orig -pe 's/(\\w+)$/$1!/' docs/guide.md",
    program: 'perl',
    folder: '/project/docs',
    changes: ['changed project/docs/guide.md', 'added project/docs/guide.md.orig'],
  },
  {
    command: 'rm -rf src',
    program: 'rm',
    folder: '/project',
    changes: ['removed project/src', 'removed project/src/index.ts', 'removed project/src/util.ts'],
  },
];

/**
 * The paths a traced call writes, as the sandbox names them: a quoted path
 * resolved against the directory fd before it (`5</project>, "docs/x"`) or
 * the cwd (`/project`), and fds of files (`4</project/x>`, not a directory
 * fd that a quoted path follows). Extended-attribute names are not paths.
 */
function writtenPaths(detail: string): string[] {
  const call = detail.replace(/^\d+\s+/, '');
  if (/^f(set|remove)xattr\(/.test(call)) return [/<(\/[^>]*)>/.exec(call)?.[1] ?? ''];
  const paths: string[] = [];
  const pattern = /(?:\d+<(\/[^>]*)>(, "((?:[^"\\]|\\.)*)")?)|(?:"((?:[^"\\]|\\.)*)")/g;
  for (const match of call.matchAll(pattern)) {
    const [, fdPath, , relative, quoted] = match;
    if (fdPath !== undefined && relative !== undefined)
      paths.push(path.posix.resolve(fdPath, relative));
    else if (fdPath !== undefined) paths.push(fdPath);
    else if (quoted !== undefined) paths.push(path.posix.resolve('/project', quoted));
  }
  return paths;
}

describe.runIf(oracle.runs)('command-line edits under strace', () => {
  let worker: OracleWorker;
  let remove: () => void = () => undefined;
  const ready = oracle.ready;

  beforeAll(() => {
    const standalone = standaloneWorker(ready());
    worker = standalone.worker;
    remove = standalone.remove;
  });
  afterAll(() => remove());

  it('allows each edit in accept_edits, and running it changes only the files it names', async () => {
    const { project, home } = worker.sandbox;
    const bash = new Bash({ cwd: project, env: { HOME: home } });
    const problems: string[] = [];
    for (const edit of EDITS) {
      const engine = new PermissionEngine({ mode: 'accept_edits', workingDirectories: [project] });
      const decision = await engine.check(bash, { command: edit.command });
      if (decision.behavior !== 'allow') {
        problems.push(`${edit.command}: ${decision.behavior} (${decision.decisionReason ?? ''})`);
        continue;
      }
      const violations = await execute(worker, edit.command, {
        isolation: ready(),
        timeoutMs: 3_000,
      });
      worker.sandbox.reset();
      const changed = violations.find((violation) =>
        violation.detail.startsWith('the sandbox changed: '),
      );
      const changes = (
        changed?.detail.replace('the sandbox changed: ', '').split(', ') ?? []
      ).sort();
      if (JSON.stringify(changes) !== JSON.stringify([...edit.changes].sort())) {
        problems.push(`${edit.command}: changed ${JSON.stringify(changes)}`);
      }
      for (const violation of violations) {
        if (violation === changed) continue;
        if (violation.kind === 'exec' && violation.detail.includes(`"/usr/bin/${edit.program}"`))
          continue;
        const paths = writtenPaths(violation.detail);
        const inside =
          violation.kind === 'write' &&
          paths.length > 0 &&
          paths.every((item) => item === edit.folder || item.startsWith(`${edit.folder}/`));
        if (!inside) problems.push(`${edit.command}: ${violation.kind} ${violation.detail}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
