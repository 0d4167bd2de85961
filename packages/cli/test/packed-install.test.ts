import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPackages, root } from '../../../scripts/workspace.mjs';
import { moduleRecorder, sdkModule, withoutOtel } from './module-log.js';
import { startServeNode, stopServeNode } from './serve-node.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

/*
 * What a new user gets: every published package is built, packed with
 * `npm pack`, and installed from its tarball (third-party dependencies from
 * the registry) into a new project in a temporary folder outside this
 * repository. There, with plain node and no tsx: the README's example runs,
 * every public entry point imports, a TypeScript consumer type-checks
 * against the published .d.ts (NodeNext), `parley chat` reaches its
 * first confirmation in a terminal, and `parley serve` exports its spans
 * over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set and loads no
 * OpenTelemetry SDK module when it is not. Everything runs on the Node this
 * test runs on (process.execPath, first on PATH, so npm builds native
 * modules for it too). It needs the npm registry and takes minutes; it
 * prints each step. Without tmux the terminal case skips, except in CI.
 */

const inCi = process.env['CI'] !== undefined;
const terminalReady = tmuxAvailable() || inCi;
if (!terminalReady) {
  console.log(
    'Skipping parley chat from the packed tarball: tmux is not installed (apt-get install -y tmux).',
  );
}

const packages = publishedPackages();
const rootManifest = readManifest(join(root, 'package.json'));
let folder = '';
let project = '';

/** The root package.json's fields this test copies into the new project. */
function readManifest(file: string): {
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
} {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error('Not a package.json');
  return { devDependencies: {}, ...parsed };
}

function say(line: string): void {
  console.log(`[packed install] ${line}`);
}

/**
 * The environment minus npm's per-run settings, so the inner npm sees only
 * the new project, with this Node's folder first on PATH, so `npm`, `npx`
 * and `#!/usr/bin/env node` run on the Node this test runs on.
 */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  env['PATH'] = [dirname(process.execPath), env['PATH']].filter(Boolean).join(delimiter);
  for (const name of Object.keys(env)) {
    if (name.toLowerCase().startsWith('npm_') || name === 'NODE_OPTIONS') delete env[name];
  }
  for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'NO_COLOR', 'FORCE_COLOR', 'TMUX'])
    delete env[name];
  return env;
}

/** Runs a command to completion; throws with its output when it fails. */
function run(command: string, args: string[], cwd: string): string {
  say(`$ ${[command, ...args].join(' ')}   (in ${cwd})`);
  const result = spawnSync(command, args, {
    cwd,
    env: cleanEnvironment(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${String(result.status)}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Every public entry point: each package's name plus each subpath of its exports. */
function entryPoints(): string[] {
  return packages.flatMap(({ name, manifest }) =>
    Object.keys(manifest.exports ?? {}).map((entry) =>
      entry === '.' ? name : `${name}${entry.slice(1)}`,
    ),
  );
}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'parley-packed-'));
  const tarballs = join(folder, 'tarballs');
  project = join(folder, 'project');
  mkdirSync(tarballs);
  mkdirSync(join(project, 'src'), { recursive: true });

  say('building every package (npm run build)');
  run('npm', ['run', '--silent', 'build'], root);

  const dependencies: Record<string, string> = {};
  for (const { name, directory } of packages) {
    const packed = run('npm', ['pack', '--silent', '--pack-destination', tarballs], directory);
    const file = packed.trim().split('\n').at(-1) ?? '';
    dependencies[name] = `file:${join(tarballs, file)}`;
    say(`${name} → ${file}`);
  }
  // The README's example imports zod itself, at the version core uses.
  const core = packages.find(({ name }) => name === '@parley/core');
  dependencies['zod'] = core?.manifest.dependencies?.['zod'] ?? '*';
  const dev = rootManifest.devDependencies;
  const manifest = {
    name: 'parley-packed-install',
    private: true,
    type: 'module',
    dependencies,
    devDependencies: {
      typescript: dev['typescript'],
      '@types/node': dev['@types/node'],
      vitest: dev['vitest'],
    },
    allowScripts: rootManifest.allowScripts ?? {},
  };
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  say(`installing the tarballs into ${project} (third-party packages from the registry)`);
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project);
}, 900_000);

afterAll(async () => {
  if (folder !== '') await rm(folder, { recursive: true, force: true });
}, 120_000);

describe('the packed packages, installed into a new project', { timeout: 300_000 }, () => {
  it('imports every public entry point with plain node', () => {
    const specifiers = entryPoints();
    const script = [
      `for (const specifier of ${JSON.stringify(specifiers)}) {`,
      '  const module = await import(specifier);',
      "  console.log(`${specifier}: ${Object.keys(module).join(', ')}`);",
      '}',
    ].join('\n');
    writeFileSync(join(project, 'entries.mjs'), script);
    const output = run(process.execPath, ['entries.mjs'], project);
    say(output.trim());
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(specifiers.length);
    for (const [index, specifier] of specifiers.entries()) {
      expect(lines[index]).toMatch(new RegExp(`^${specifier}: \\w`));
    }
    expect(output).toContain('@parley/core: ');
    expect(output).toContain('Agent');
  });

  it("type-checks a TypeScript consumer (NodeNext) and runs the README's example with node", () => {
    copyFileSync(join(root, 'docs/examples/readme.ts'), join(project, 'src/example.ts'));
    const reexports = entryPoints().map(
      (specifier, index) => `export * as entry${index} from '${specifier}';`,
    );
    writeFileSync(join(project, 'src/entries.ts'), `${reexports.join('\n')}\n`);
    const tsconfig = {
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        strict: true,
        skipLibCheck: true,
        rootDir: 'src',
        outDir: 'dist',
      },
      include: ['src'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    run('npx', ['--no-install', 'tsc', '-p', '.'], project);

    // The published .d.ts themselves, checked too: no error may point into them.
    const checked = spawnSync(
      'npx',
      ['--no-install', 'tsc', '-p', '.', '--noEmit', '--skipLibCheck', 'false'],
      {
        cwd: project,
        env: cleanEnvironment(),
        encoding: 'utf8',
      },
    );
    const ours = checked.stdout
      .split('\n')
      .filter((line) => /node_modules\/(@parley\/|parley\/)/.test(line));
    say(`tsc --skipLibCheck false: ${ours.length} error(s) in Parley's .d.ts`);
    expect(ours).toEqual([]);

    const output = run(process.execPath, ['dist/example.js'], project);
    say(output.trim());
    expect(output).toContain("output: 'Wrote notes/a.txt'");
    expect(output).toContain("text: 'done'");
  });

  it('runs `parley --help` from the installed bin', () => {
    const output = run(join(project, 'node_modules/.bin/parley'), ['--help'], project);
    expect(output).toContain('parley chat');
  });

  it('runs `parley serve`: spans over OTLP with the endpoint set, no SDK loaded without it', async () => {
    const parley = [process.execPath, join(project, 'node_modules/parley/bin/parley.js')];
    const traces: string[] = [];
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        traces.push(`${request.url ?? ''} ${request.headers['content-type'] ?? ''}`);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const serveOnce = async (name: string, otel: Record<string, string>) => {
      const recorder = moduleRecorder(folder, name);
      const env = { ...withoutOtel(cleanEnvironment()), ...otel, ...recorder.env };
      say(`$ parley serve --model scripted:demo   (${JSON.stringify(otel)})`);
      const args = ['--model', 'scripted:demo', '--port', '0', '--data', join(folder, name)];
      const node = await startServeNode(args, env, parley);
      try {
        expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
      } finally {
        await stopServeNode(node);
      }
      return recorder.modules().filter((module) => sdkModule.test(module));
    };
    try {
      expect(await serveOnce('serve-off', {})).toEqual([]);
      expect(traces).toEqual([]);
      const loaded = await serveOnce('serve-on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(loaded.some((module) => module.includes('@opentelemetry/sdk-trace-node/'))).toBe(true);
      expect(traces).toContain('/v1/traces application/x-protobuf');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it.runIf(terminalReady)(
    "runs `parley chat` in a terminal to the scripted demo's first confirmation",
    async () => {
      const env = cleanEnvironment();
      Object.assign(env, {
        XDG_STATE_HOME: join(folder, 'state'),
        PARLEY_DEMO_PACE_MS: '0',
        TERM: 'xterm-256color',
      });
      const terminal = new TmuxTerminal({ width: 120, height: 50, cwd: project, env });
      try {
        const session = join(folder, 'session.sqlite');
        say(`$ node node_modules/parley/bin/parley.js chat --session ${session}   (in tmux)`);
        terminal.start([
          process.execPath,
          'node_modules/parley/bin/parley.js',
          'chat',
          '--session',
          session,
        ]);
        await terminal.waitFor('No API key found');
        terminal.press('Enter');
        await terminal.waitFor('› you');
        terminal.type('hi');
        terminal.press('Enter');
        const screen = await terminal.waitFor('Allow write_note?');
        say(`reached the first confirmation:\n${screen.trim()}`);
        expect(screen).toContain('(scripted demo — no model is called)');
        terminal.press('C-c');
        const end = await terminal.waitFor('[exit 0]');
        expect(end).toContain('The reply is parked, waiting for you. Session saved.');
      } finally {
        terminal.close();
      }
    },
  );
});
