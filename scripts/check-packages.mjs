// `npm run check:packages`: the publish gates, on every published workspace
// package. Each package must follow the recipe in
// docs/decisions/core-0004-publishable-packages.md (checked here from its
// package.json and files), and pass `publint --strict` and
// `attw --pack --profile esm-only` (both pack it with npm first), so what
// reaches npm resolves for Node and TypeScript alike. Needs `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { publishedPackages, root } from './workspace.mjs';

const rootManifest = await import(join(root, 'package.json'), { with: { type: 'json' } });
const nodeRange = rootManifest.default.engines.node;

/**
 * What the recipe asks of a package that the tools below do not check.
 * @param {import('./workspace.mjs').WorkspacePackage} workspace
 * @returns {string[]} the problems found
 */
function recipeProblems({ manifest, directory }) {
  const problems = [];
  if (typeof manifest.version !== 'string') problems.push('no version');
  if (typeof manifest.description !== 'string') problems.push('no description');
  if (typeof manifest.license !== 'string') problems.push('no license');
  if (manifest.type !== 'module') problems.push('type is not "module"');
  if (manifest.engines?.node !== nodeRange) problems.push(`engines.node is not "${nodeRange}"`);
  if (!Array.isArray(manifest.files) || !manifest.files.includes('dist')) {
    problems.push('files does not list "dist"');
  }
  for (const file of ['README.md', 'LICENSE', 'tsconfig.build.json']) {
    if (!existsSync(join(directory, file))) problems.push(`no ${file}`);
  }
  for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
    const keys = typeof target === 'object' && target !== null ? Object.keys(target) : [];
    if (keys.join() !== '@parley/source,types,default') {
      problems.push(`exports["${entry}"] is not { "@parley/source", "types", "default" }`);
    }
  }
  if (manifest.exports === undefined) problems.push('no exports');
  return problems;
}

/**
 * Runs a tool from node_modules/.bin in the package's folder.
 * @param {string} label
 * @param {string[]} command
 * @param {string} cwd
 */
function gate(label, command, cwd) {
  process.stdout.write(`\n$ ${command.join(' ')}   (${label})\n`);
  const run = spawnSync('npx', ['--no-install', ...command], { cwd, stdio: 'inherit' });
  return run.status === 0;
}

let failed = 0;
for (const workspace of publishedPackages()) {
  process.stdout.write(`\n== ${workspace.name} (${workspace.folder})\n`);
  const problems = recipeProblems(workspace);
  for (const problem of problems) process.stdout.write(`recipe: ${problem}\n`);
  const publint = gate(workspace.name, ['publint', '--strict', '.'], workspace.directory);
  const attw = gate(
    workspace.name,
    ['attw', '--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped'],
    workspace.directory,
  );
  if (problems.length > 0 || !publint || !attw) failed += 1;
}
process.stdout.write(
  failed === 0
    ? '\nEvery published package passes the recipe, publint --strict and attw.\n'
    : `\n${failed} package(s) failed the publish gates.\n`,
);
process.exit(failed === 0 ? 0 : 1);
