/**
 * What the Bash permission check costs in asks and what it lets through:
 * every shell case of the permission corpus is decided through
 * `PermissionEngine.check`, and the allows are counted for
 * - the harmless controls (cases the corpus expects to be allowed: its
 *   original allowed cases and the `control` class of realistic read-only
 *   commands), as "allowed" and "allowed as read-only";
 * - the attack cases of issue #10 (classes `2-redirect` … `6-suggestion` and
 *   `rules`), which should never be allowed;
 * - the suggestions that differ from what the corpus expects (a suggestion
 *   must never cover an interpreter's code flags).
 *
 * Given the path of another checkout, its Bash tool decides the same corpus
 * (this checkout's fixture and sandbox), so two versions can be compared
 * side by side: `npx tsx bench/permission-asks.ts /path/to/other/checkout`.
 *
 * Run: npx tsx bench/permission-asks.ts [other-checkout]
 */
import path from 'node:path';
import type { PermissionEngine } from '@parley/core';
import * as here from '@parley/tools';
import {
  corpusEngine,
  createSandbox,
  loadCorpus,
  type BashCase,
} from '../packages/tools/test/corpus.js';

type Tools = typeof here;
type Tally = { total: number; allowed: number; readOnly: number };

const other = process.argv[2];
const tools: Tools =
  other === undefined ? here : await import(path.resolve(other, 'packages/tools/src/index.ts'));

const sandbox = createSandbox();
try {
  const bash = new tools.Bash({ cwd: sandbox.project, env: { HOME: sandbox.home } });
  const engineFor = (entry: BashCase): PermissionEngine => corpusEngine(sandbox, entry);
  await engineFor({ command: 'true', expect: 'allow', why: '' }).check(bash, { command: 'true' });

  const tallies = new Map<string, Tally>();
  const letThrough: string[] = [];
  const overSuggested: string[] = [];
  for (const entry of loadCorpus().bash) {
    const group =
      entry.expect === 'allow'
        ? entry.class === 'control'
          ? 'controls: realistic read-only set'
          : 'controls: original corpus allows'
        : entry.class === undefined
          ? undefined
          : `attacks: ${entry.class}`;
    if (group === undefined) continue;
    const decision = await engineFor(entry).check(bash, { command: sandbox.place(entry.command) });
    const tally = tallies.get(group) ?? { total: 0, allowed: 0, readOnly: 0 };
    tally.total++;
    if (decision.behavior === 'allow') {
      tally.allowed++;
      if (decision.decisionReason === 'read-only') tally.readOnly++;
      if (group.startsWith('attacks'))
        letThrough.push(`[${entry.mode ?? 'default'}] ${entry.command}`);
    }
    tallies.set(group, tally);
    const expected = entry.suggests;
    if (expected !== undefined && decision.behavior === 'ask') {
      const suggested = (decision.suggestedRules ?? [])
        .filter((item) => item.toolName === 'Bash')
        .map((item) => item.ruleContent);
      if (JSON.stringify(suggested) !== JSON.stringify(expected))
        overSuggested.push(`${entry.command}: ${JSON.stringify(suggested)}`);
    }
  }
  const lines = [...tallies.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([group, tally]) =>
        `${group.padEnd(40)} ${String(tally.allowed).padStart(3)}/${String(tally.total).padEnd(3)} allowed  (${tally.readOnly} as read-only)`,
    );
  process.stdout.write(
    `Bash decisions by ${other === undefined ? 'this checkout' : other}\n${lines.join('\n')}\n` +
      (letThrough.length > 0 ? `attacks allowed:\n  ${letThrough.join('\n  ')}\n` : '') +
      `suggestions other than the corpus expects: ${overSuggested.length}\n` +
      overSuggested.map((item) => `  ${item}\n`).join(''),
  );
} finally {
  sandbox.remove();
}
