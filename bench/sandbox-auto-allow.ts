/**
 * How many asks sandbox auto-allow (`sandbox.autoAllow`, ADR tools-0007)
 * saves on the permission corpus: every shell case is decided through
 * `PermissionEngine.check` with its own rules and mode, by a Bash tool with
 * auto-allow off and one with it on, side by side. Reported by group (the
 * harmless controls, the attack classes of issue #10, the rest) as asks
 * without → with, and which attack cases auto-allow now lets run (inside
 * the sandbox, with the working directories to write and no network).
 *
 * Run: npx tsx bench/sandbox-auto-allow.ts
 */
import type { PermissionEngine } from '@parley/core';
import { Bash } from '../packages/tools/src/index.js';
import {
  corpusEngine,
  createSandbox,
  loadCorpus,
  type BashCase,
} from '../packages/tools/test/corpus.js';

const sandbox = createSandbox();
try {
  const options = { cwd: sandbox.project, env: { HOME: sandbox.home } };
  const tools = {
    off: new Bash({ ...options, sandbox: { mode: 'required' } }),
    on: new Bash({ ...options, sandbox: { mode: 'required', autoAllow: true } }),
  };
  const engineFor = (entry: BashCase): PermissionEngine => corpusEngine(sandbox, entry);
  await engineFor({ command: 'true', expect: 'allow', why: '' }).check(tools.off, {
    command: 'true',
  });

  const groups = new Map<string, { total: number; off: number; on: number }>();
  const nowRun: string[] = [];
  for (const entry of loadCorpus().bash) {
    const group =
      entry.class === 'control' || entry.expect === 'allow'
        ? 'controls'
        : entry.class === undefined
          ? 'other asks'
          : `attacks ${entry.class}`;
    const command = sandbox.place(entry.command);
    const engine = engineFor(entry);
    const off = await engine.check(tools.off, { command });
    const on = await engine.check(tools.on, { command });
    const tally = groups.get(group) ?? { total: 0, off: 0, on: 0 };
    tally.total++;
    if (off.behavior === 'ask') tally.off++;
    if (on.behavior === 'ask') tally.on++;
    groups.set(group, tally);
    if (off.behavior === 'ask' && on.behavior === 'allow' && group.startsWith('attacks')) {
      nowRun.push(`${group}: ${entry.command}`);
    }
  }
  let before = 0;
  let after = 0;
  for (const [group, tally] of [...groups].sort()) {
    before += tally.off;
    after += tally.on;
    console.log(`${group}: ${tally.total} cases, asks ${tally.off} -> ${tally.on}`);
  }
  console.log(
    `all: asks ${before} -> ${after}, ${before - after} saved (${(((before - after) / Math.max(before, 1)) * 100).toFixed(0)}%)`,
  );
  console.log(`attack cases auto-allow runs in the sandbox instead of asking: ${nowRun.length}`);
  for (const line of nowRun.slice(0, Number(process.env.SHOW ?? 15))) console.log(`  ${line}`);
} finally {
  sandbox.remove();
}
