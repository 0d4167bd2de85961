// What the request-body depth check (packages/server/src/http/middleware/json-depth.ts)
// costs, side by side with what every JSON body costs anyway: JSON.parse of
// the same text. The body is 1 MiB of the kind a reply's POST carries (a
// message whose metadata holds many items with long strings, quotes and
// brackets inside them). Each side runs ROUNDS (default 200) times after a
// warm-up, three times over, alternating; reported as ms per body and the
// ratio scan/parse.
//
//   npx tsx bench/json-depth-scan.ts
import { performance } from 'node:perf_hooks';
import { nestsDeeperThan } from '../packages/server/src/http/middleware/json-depth.js';

const rounds = Number(process.env['ROUNDS'] ?? '200');
const item = {
  role: 'user',
  content: `${'x'.repeat(200)} "quoted [brackets] {braces}" \\ back\\slashes`,
  metadata: { a: [1, 2, { b: 'c' }] },
};
const items: unknown[] = [];
while (JSON.stringify(items).length < 1024 * 1024) items.push(item);
const text = JSON.stringify({ input: { role: 'user', content: 'hi', metadata: { items } } });

/** Milliseconds per run of `run`, after a warm-up. */
function time(run: () => unknown): number {
  for (let index = 0; index < 20; index += 1) run();
  const start = performance.now();
  for (let index = 0; index < rounds; index += 1) run();
  return (performance.now() - start) / rounds;
}

for (let pass = 0; pass < 3; pass += 1) {
  const parse = time(() => JSON.parse(text));
  const scan = time(() => nestsDeeperThan(text, 64));
  process.stdout.write(
    `${text.length} bytes: JSON.parse ${parse.toFixed(3)} ms, depth scan ${scan.toFixed(3)} ms, ` +
      `scan/parse ${(scan / parse).toFixed(2)}\n`,
  );
}
