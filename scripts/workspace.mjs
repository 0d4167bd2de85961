// The workspace's packages, read from the root package.json's `workspaces`
// globs, in dependency order (a package comes after the workspace packages
// it depends on). The build, the publish gates and the packed-install test
// all start from this list, so a new package is covered without naming it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Expands one `workspaces` entry: a folder, or a folder ending in `/*`.
 * @param {string} pattern
 * @returns {string[]}
 */
function expand(pattern) {
  if (!pattern.endsWith('/*')) return [pattern];
  const parent = pattern.slice(0, -2);
  return readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${parent}/${entry.name}`)
    .sort();
}

/**
 * @typedef {{ name: string, folder: string, directory: string, manifest: Record<string, any> }} WorkspacePackage
 */

/**
 * Every workspace package with a package.json, dependencies first.
 * @returns {WorkspacePackage[]}
 */
export function workspacePackages() {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  /** @type {WorkspacePackage[]} */
  const found = [];
  for (const folder of rootManifest.workspaces.flatMap(expand)) {
    const file = join(root, folder, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    found.push({ name: manifest.name, folder, directory: join(root, folder), manifest });
  }
  const byName = new Map(found.map((workspace) => [workspace.name, workspace]));
  /** @type {WorkspacePackage[]} */
  const ordered = [];
  const visiting = new Set();
  /** @param {WorkspacePackage} workspace */
  const visit = (workspace) => {
    if (ordered.includes(workspace)) return;
    if (visiting.has(workspace.name)) throw new Error(`Dependency cycle at ${workspace.name}`);
    visiting.add(workspace.name);
    const { dependencies = {}, peerDependencies = {}, devDependencies = {} } = workspace.manifest;
    for (const name of Object.keys({ ...dependencies, ...peerDependencies, ...devDependencies })) {
      const dependency = byName.get(name);
      if (dependency !== undefined) visit(dependency);
    }
    visiting.delete(workspace.name);
    ordered.push(workspace);
  };
  for (const workspace of found) visit(workspace);
  return ordered;
}

/**
 * The packages that are published: those not marked `private`.
 * @returns {WorkspacePackage[]}
 */
export function publishedPackages() {
  return workspacePackages().filter((workspace) => workspace.manifest.private !== true);
}
