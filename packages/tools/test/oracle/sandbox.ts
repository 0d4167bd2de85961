import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The throwaway directories the oracle runs commands in. A template is made
 * once (a project with a few files and a real one-commit git repository, a
 * fake home with a `.bashrc`, an empty temp directory) and copied into each
 * worker's directory. Every command starts from that state: after a run,
 * the worker's tree is compared with how it was before (paths, kinds, sizes,
 * modification times, link targets), and if anything differs — or the run
 * had a finding — it is removed and copied afresh.
 */

/** The user commands run as when the harness is root: they can write only their own sandbox. */
export const SANDBOX_UID = 65534;

/** One worker's directory: where its commands run. */
export type WorkerSandbox = {
  /** The worker's root; the command's cwd is `project` below it. */
  root: string;
  project: string;
  home: string;
  tmp: string;
  /** Where strace writes this worker's trace (outside the sandbox, owned by the harness). */
  traceFile: string;
  /** Removes the worker's directory and copies the template in again. */
  reset(): void;
  /**
   * What changed in the worker's tree since the last reset: paths added,
   * removed or modified (empty when nothing did). `.git/index` is compared by
   * size only, since git rewrites it with fresh stat data (tools-0005).
   */
  changes(): string[];
};

/** The sandbox base: the template and one directory per worker, under the system temp directory. */
export type OracleSandbox = {
  base: string;
  worker(index: number): WorkerSandbox;
  remove(): void;
};

const FILES: Record<string, string> = {
  'project/README.md': '# demo\nTODO: write more\nfoo bar\n',
  'project/notes.txt': 'alpha\nbeta\nbeta\ngamma\n',
  'project/data.csv': 'name,count\napple,3\npear,5\n',
  'project/src/index.ts': "export const foo = 'bar';\n",
  'project/src/util.ts': 'export function add(a: number, b: number) { return a + b; }\n',
  'project/docs/guide.md': 'read me\n',
  'project/scripts/run.sh': 'echo run\n',
  'project/.env': 'TOKEN=placeholder\n',
  'home/.bashrc': '# fake bashrc\n',
  'home/.profile': '# fake profile\n',
  'home/.gitconfig': '[user]\n\tname = Oracle\n\temail = oracle@example.invalid\n',
};

/**
 * Makes the template under a new directory in the system temp directory.
 * `owner` is the uid the sandboxes are given (the harness's own when it is
 * not root).
 */
export function createOracleSandbox(owner: number | undefined): OracleSandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'parley-oracle-')));
  // The sandbox user may pass through to its own directory, not list the base.
  chmodSync(base, 0o711);
  const template = path.join(base, 'template');
  for (const [name, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(template, name)), { recursive: true });
    writeFileSync(path.join(template, name), text);
  }
  mkdirSync(path.join(template, 'tmp'));
  seedRepository(path.join(template, 'project'), path.join(template, 'home'));
  mkdirSync(path.join(base, 'traces'));
  return {
    base,
    worker: (index) => {
      const root = path.join(base, `w${index}`);
      let clean = new Map<string, string>();
      const reset = (): void => {
        rmSync(root, { recursive: true, force: true });
        cpSync(template, root, { recursive: true, verbatimSymlinks: true });
        if (owner !== undefined) chownTree(root, owner);
        clean = fingerprint(root);
      };
      const changes = (): string[] => {
        const now = fingerprint(root);
        const changed = [...now].filter(([name, state]) => clean.get(name) !== state);
        const removed = [...clean.keys()].filter((name) => !now.has(name));
        return [
          ...changed.map(([name]) => (clean.has(name) ? `changed ${name}` : `added ${name}`)),
          ...removed.map((name) => `removed ${name}`),
        ];
      };
      reset();
      return {
        root,
        project: path.join(root, 'project'),
        home: path.join(root, 'home'),
        tmp: path.join(root, 'tmp'),
        traceFile: path.join(base, 'traces', `w${index}.txt`),
        reset,
        changes,
      };
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A one-commit repository with a hook, so git's read-only commands have something to read. */
function seedRepository(project: string, home: string): void {
  const git = (...args: string[]): boolean =>
    spawnSync('git', args, {
      cwd: project,
      env: { PATH: '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    }).status === 0;
  const made =
    git('init', '-q', '--template=', '-b', 'main') &&
    git('add', '-A') &&
    git('commit', '-q', '-m', 'initial') &&
    git('branch', 'feature');
  if (!made) {
    // No git here: a directory that looks like one, still a target worth guarding.
    rmSync(path.join(project, '.git'), { recursive: true, force: true });
    mkdirSync(path.join(project, '.git', 'refs', 'heads'), { recursive: true });
    writeFileSync(path.join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(project, '.git', 'config'), '[core]\n\tbare = false\n');
  }
  mkdirSync(path.join(project, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(project, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\nexit 0\n');
}

function chownTree(directory: string, uid: number): void {
  chownSync(directory, uid, uid);
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) chownTree(full, uid);
    else lchownSync(full, uid, uid);
  }
}

/** Each path below `root` with what it is: `d` for a directory, `f size mtime` for a file, `l target` for a link. */
function fingerprint(
  root: string,
  map = new Map<string, string>(),
  relative = '',
): Map<string, string> {
  for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
    const name = path.join(relative, entry.name);
    const full = path.join(root, name);
    if (entry.isDirectory()) {
      map.set(name, 'd');
      fingerprint(root, map, name);
    } else if (entry.isSymbolicLink()) {
      map.set(name, `l ${readlinkSync(full)}`);
    } else {
      const stat = lstatSync(full);
      map.set(
        name,
        name.endsWith('.git/index') ? `f ${stat.size}` : `f ${stat.size} ${stat.mtimeMs}`,
      );
    }
  }
  return map;
}
