// `npm run docs:api`: the API reference, generated with TypeDoc from the
// JSDoc of every public entry point (each `exports` entry of each
// published workspace package, read from its `@parley/source` target) into
// docs/api/ (not committed). `npm run docs:check` (CI) writes only TypeDoc's
// JSON model, to a temporary folder, and fails when a doc comment links to
// something that does not exist or when an export of an entry point has no
// doc comment. (TypeDoc's own notDocumented check also asks for every member
// of every type; the rule here is the house rule: JSDoc on every export.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { publishedPackages, root } from './workspace.mjs';

const check = process.argv.includes('--check');
const packages = publishedPackages();
const entryPoints = packages.flatMap(({ folder, manifest }) =>
  Object.values(manifest.exports ?? {}).map((target) => join(folder, target['@parley/source'])),
);
const folder = mkdtempSync(join(tmpdir(), 'parley-api-'));
const model = join(folder, 'api.json');
const args = [
  '--tsconfig',
  'tsconfig.json',
  '--entryPointStrategy',
  'resolve',
  ...entryPoints.flatMap((entry) => ['--entryPoints', entry]),
  '--name',
  'Parley',
  '--readme',
  'none',
  '--excludePrivate',
  '--excludeInternal',
  '--validation.notDocumented',
  'false',
  '--validation.invalidLink',
  '--treatValidationWarningsAsErrors',
  '--json',
  model,
  ...(check ? [] : ['--out', join('docs', 'api')]),
  ...process.argv.slice(2).filter((arg) => arg !== '--check'),
];
const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const run = spawnSync(process.execPath, [typedoc, ...args], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) {
  rmSync(folder, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}

/**
 * Whether a reflection of TypeDoc's JSON model carries a doc comment (a
 * function's sits on its signatures).
 * @param {{ comment?: unknown, signatures?: { comment?: unknown }[] }} reflection
 */
const hasComment = (reflection) =>
  reflection.comment !== undefined ||
  (reflection.signatures ?? []).some((signature) => signature.comment !== undefined);

const project = JSON.parse(readFileSync(model, 'utf8'));
rmSync(folder, { recursive: true, force: true });
/** Every reflection by id, so a re-export (a reference) is judged by what it names. */
const byId = new Map();
/** @param {{ id: number, children?: unknown[] }} reflection */
const index = (reflection) => {
  byId.set(reflection.id, reflection);
  for (const child of reflection.children ?? []) index(child);
};
index(project);
const missing = [];
let exported = 0;
for (const entry of project.children ?? []) {
  for (const declaration of entry.children ?? []) {
    exported += 1;
    const target = declaration.variant === 'reference' ? byId.get(declaration.target) : declaration;
    if (target === undefined || !hasComment(target))
      missing.push(`${entry.name}: ${declaration.name}`);
  }
}
for (const name of missing) process.stdout.write(`no doc comment: ${name}\n`);
process.stdout.write(
  `${exported - missing.length} of ${exported} exports of ${entryPoints.length} entry points have a doc comment.\n`,
);
process.exit(missing.length === 0 ? 0 : 1);
