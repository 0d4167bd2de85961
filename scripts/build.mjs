// `npm run build` (and `prepare`, so `npm ci` leaves a working `parley`):
// compiles every published workspace package with tsc to its dist/ folder,
// dependencies first, in one `tsc --build` run so unchanged packages are
// skipped. Each package's own tsconfig.build.json says what goes in. Then
// Vite builds the web UI (packages/web) into @parley/server's dist/public,
// which the server serves at `/` (docs/decisions/web-0001-web-ui.md).
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { publishedPackages, root } from './workspace.mjs';

const projects = publishedPackages().map((workspace) => {
  const config = join(workspace.folder, 'tsconfig.build.json');
  if (!existsSync(join(root, config))) {
    throw new Error(`${workspace.name} is published but has no ${config}`);
  }
  return config;
});
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = spawnSync(process.execPath, [tsc, '--build', ...projects, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);

// Vite writes a fresh folder beside the served one, which then takes its
// place by two renames: a server running meanwhile (a test) never finds
// the folder emptied halfway.
const publicFolder = join(root, 'packages', 'server', 'dist', 'public');
const next = `${publicFolder}.next`;
const old = `${publicFolder}.old`;
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const web = spawnSync(
  process.execPath,
  [vite, 'build', '--logLevel', 'warn', '--outDir', next, '--emptyOutDir'],
  { cwd: join(root, 'packages', 'web'), stdio: 'inherit' },
);
if (web.status !== 0) process.exit(web.status ?? 1);
rmSync(old, { recursive: true, force: true });
if (existsSync(publicFolder)) renameSync(publicFolder, old);
renameSync(next, publicFolder);
rmSync(old, { recursive: true, force: true });
