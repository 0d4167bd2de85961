/**
 * How often ordinary command-line edits are not allowed (ask, or in
 * `dont_ask` deny), by mode, and how many of those offer no rule (issue 45): `sed -i` and `perl -pi` substitutions,
 * `rm -rf` of a project folder, and the file-system commands that were
 * already edits (`mkdir -p`, `cp`, `mv`, `ln -s`, `chmod +x`, `tee`,
 * redirections), all inside the project of the corpus sandbox.
 *
 * Given the path of another checkout, its Bash tool decides the same list,
 * so two versions are compared side by side in one run:
 * `npx tsx --conditions=@parley/source bench/command-line-edits.ts /path/to/other`.
 */
import path from 'node:path';
import { PermissionEngine } from '@parley/core';
import type { PermissionMode } from '@parley/core';
import * as here from '@parley/tools';
import { createSandbox } from '../packages/tools/test/corpus.js';

const EDITS = [
  'sed -i s/hello/bye/ notes.txt',
  "sed -i.bak -e 's/a/b/g' src/index.ts",
  "sed -i -E 's/(a+)/[\\1]/' README.md",
  "perl -pi -e 's/a/b/' notes.txt",
  "perl -i -pe 'tr/a-z/A-Z/' notes.txt",
  'rm -rf src/out',
  'rm -rf build dist',
  'mkdir -p src/new',
  'cp notes.txt docs/notes.txt',
  'mv notes.txt docs/',
  'ln -s ../notes.txt docs/link',
  'chmod +x scripts/run.sh',
  'echo done | tee docs/log.txt',
  'echo hi > docs/out.txt',
  'printf x >> notes.txt',
];
const MODES: PermissionMode[] = ['default', 'accept_edits', 'dont_ask', 'bypass'];

type Tools = typeof here;
const sandbox = createSandbox();

async function tally(tools: Tools): Promise<Record<string, { asks: number; noRule: number }>> {
  const bash = new tools.Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  const result: Record<string, { asks: number; noRule: number }> = {};
  for (const mode of MODES) {
    let asks = 0;
    let noRule = 0;
    for (const command of EDITS) {
      const engine = new PermissionEngine({ mode, workingDirectories: [sandbox.project] });
      const decision = await engine.check(bash, { command });
      // dont_ask turns an ask into a denial: both are "not allowed".
      if (decision.behavior !== 'allow') {
        asks += 1;
        if ((decision.suggestedRules ?? []).length === 0) noRule += 1;
      }
    }
    result[mode] = { asks, noRule };
  }
  return result;
}

try {
  const other = process.argv[2];
  const runs: [string, Tools][] = [['this checkout', here]];
  if (other !== undefined) {
    const tools = (await import(path.resolve(other, 'packages/tools/src/index.ts'))) as Tools;
    runs.unshift([other, tools]);
  }
  console.log(
    `${EDITS.length} command-line edits inside the project; not allowed: asks, or denials in dont_ask (of which with no rule offered)`,
  );
  for (const [name, tools] of runs) {
    const counts = await tally(tools);
    const line = MODES.map((mode) => `${mode} ${counts[mode]?.asks} (${counts[mode]?.noRule})`);
    console.log(`${name}: ${line.join(', ')}`);
  }
} finally {
  sandbox.remove();
}
