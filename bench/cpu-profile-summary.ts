// Where a V8 CPU profile's time went, by area: each sample's self time is
// given to the package (or Parley package, or Node's own code) of the
// function it was taken in, plus the functions with the most self time.
// Used by bench/server-load.ts (PROFILE=<file>); a profile written by
// `node --cpu-prof` reads the same way:
//
//   npx tsx bench/cpu-profile-summary.ts /tmp/x.cpuprofile
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Profiler } from 'node:inspector';

/** The area a function's source belongs to. */
function areaOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const parleyPackage = /\/packages\/([^/]+)\//.exec(url)?.[1];
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    const scoped = rest[0]?.startsWith('@') === true;
    return scoped ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (parleyPackage !== undefined) return `@parley/${parleyPackage}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  if (url.includes('/bench/')) return 'bench';
  return url;
}

/** Self milliseconds by area and by function, largest first. */
export function summarizeProfile(profile: Profiler.Profile): {
  total: number;
  areas: [string, number][];
  functions: [string, number][];
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  (profile.samples ?? []).forEach((id, index) => {
    const node = byId.get(id);
    const ms = (deltas[index] ?? 0) / 1000;
    if (node === undefined) return;
    const { url, functionName, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    total += ms;
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const file = url.split('/').slice(-2).join('/');
    const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
  });
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { total, areas: sorted(areas), functions: sorted(functions) };
}

/** Prints the summary: the areas over 1% of the time, and the top `top` functions. */
export function printProfileSummary(profile: Profiler.Profile, top = 20): void {
  const { total, areas, functions } = summarizeProfile(profile);
  const share = (ms: number) => `${((100 * ms) / total).toFixed(1).padStart(5)}%`;
  console.log(`  profile: ${total.toFixed(0)} ms sampled; self time by area`);
  for (const [area, ms] of areas) {
    if (ms / total >= 0.01) console.log(`    ${share(ms)}  ${area}`);
  }
  console.log(`  top functions by self time`);
  for (const [name, ms] of functions.slice(0, top)) console.log(`    ${share(ms)}  ${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile>');
  const parsed: Profiler.Profile = JSON.parse(readFileSync(file, 'utf8'));
  printProfileSummary(parsed, Number(process.argv[3] ?? 20));
}
