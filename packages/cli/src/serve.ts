import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { Toolkit } from '@parley/core';
import { SqliteServerLog, apiKeyAuth, bearerToken, createServer } from '@parley/server';
import type { Authenticate, Principal } from '@parley/server';
import { SqliteSessionStore } from '@parley/store-sqlite';
import type { ServeArgs } from './args.js';
import { UsageError } from './args.js';
import { buildSetup } from './agent-setup.js';
import { approverName } from './login-name.js';
import { defaultModelSpec, demoSpec, parseModelChoice } from './model-spec.js';
import { builtInToolNames, parseToolList } from './tool-set.js';

/** Where `parley serve` runs: its output and the process's environment and signals. */
export type ServeEnvironment = {
  write: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is asked to stop (SIGTERM, SIGINT). */
  stopRequested: Promise<void>;
};

/** The folder `parley serve` and `parley keys` keep their SQLite file in, by default. */
export const defaultDataFolder = '.parley';

/** The SQLite file in a data folder (sessions, events and API keys share it). */
export function databasePath(data: string | undefined): string {
  return join(resolve(data ?? defaultDataFolder), 'parley.sqlite');
}

/** Whether `host` names this machine only (a loopback address or `localhost`). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** Accepts the login token of this run as `login`, and API keys from the log. */
function authenticator(token: string, login: Principal, log: SqliteServerLog): Authenticate {
  const expected = Buffer.from(token);
  const keys = apiKeyAuth(log);
  return (request) => {
    const given = Buffer.from(bearerToken(request) ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return login;
    return keys(request);
  };
}

/**
 * `parley serve`: the agent of `--model`/`--tools`/`--mode`/`--cwd` (as in
 * `parley chat`) as an HTTP service on an embedded SQLite file, until the
 * process is asked to stop; then running replies get a grace period, and the
 * files are closed. Resolves to the exit code.
 */
export async function runServe(args: ServeArgs, environment: ServeEnvironment): Promise<number> {
  const { write, env } = environment;
  const cwd = resolve(args.cwd ?? process.cwd());
  if ((await stat(cwd).catch(() => undefined))?.isDirectory() !== true) {
    throw new UsageError(`--cwd ${cwd} is not a directory.`);
  }
  const spec = args.model ?? defaultModelSpec(env);
  if (spec === undefined) {
    throw new UsageError(`No API key found and no --model given (try --model ${demoSpec}).`);
  }
  const host = args.host ?? '127.0.0.1';
  const path = databasePath(args.data);
  await mkdir(join(path, '..'), { recursive: true });
  const log = new SqliteServerLog({ path });
  const store = new SqliteSessionStore({ path });
  try {
    const liveKeys = (await log.listKeys()).filter((key) => key.revokedAt === null);
    if (!isLoopback(host) && liveKeys.length === 0) {
      throw new UsageError(
        `Refusing to serve on ${host} without API keys: create one with "parley keys create NAME", ` +
          'or serve on 127.0.0.1.',
      );
    }
    const toolNames = args.tools === undefined ? [...builtInToolNames] : parseToolList(args.tools);
    const setup = await buildSetup(parseModelChoice(spec), toolNames, cwd, 'serve', env);
    const token = randomBytes(24).toString('base64url');
    const login: Principal = { id: approverName(env), roles: ['approver'] };
    const server = createServer({
      store,
      log,
      agent: {
        name: 'assistant',
        systemPrompt: setup.systemPrompt,
        model: setup.model,
        toolkit: new Toolkit(setup.tools),
        permission: { mode: args.mode ?? 'default', workingDirectories: [cwd] },
      },
      authenticate: authenticator(token, login, log),
    });
    const { url } = await server.listen({ port: args.port ?? 8787, host });
    write(`parley serve · ${spec} · ${url}\n`);
    for (const note of setup.notes) write(`${note}\n`);
    write(`data ${path}\n`);
    write(`login token (as ${login.id}, this run only): ${token}\n`);
    write(`  web UI: ${url}/?token=${token}\n`);
    write(`  curl -H "Authorization: Bearer ${token}" ${url}/v1/sessions\n`);
    await environment.stopRequested;
    write('Stopping: running replies get a moment to park or end…\n');
    await server.close();
    write('Stopped.\n');
    return 0;
  } finally {
    await store.close();
    log.close();
  }
}
