import { createPublicKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { Toolkit } from '@parley/core';
import { apiKeyAuth, bearerToken, createServer, jwtAuth } from '@parley/server';
import type { ApiKeyStore, Authenticate, JwtAuthOptions, Principal } from '@parley/server';
import type { ServeArgs } from './args.js';
import { UsageError } from './args.js';
import { buildSetup, serverKey } from './agent-setup.js';
import { approverName } from './login-name.js';
import { serveLogger } from './serve-logger.js';
import { defaultModelSpec, demoSpec, parseModelChoice } from './model-spec.js';
import { openBackend } from './serve-backend.js';
import { loadServeConfig, mergeServeSettings, policyRules } from './serve-config.js';
import { captureContentWanted, withTelemetry } from './telemetry.js';
import type { ServeSettings } from './serve-config.js';
import { builtInToolNames, parseToolList } from './tool-set.js';

/** Where `parley serve` runs: its output and the process's environment and signals. */
export type ServeEnvironment = {
  write: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is asked to stop (SIGTERM, SIGINT). */
  stopRequested: Promise<void>;
};

/** Whether `host` names this machine only (a loopback address or `localhost`). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The `jwtAuth` options of a config file's `jwt`: a PEM `key` is a public key, any other a secret. */
function jwtOptions(jwt: NonNullable<ServeSettings['jwt']>): JwtAuthOptions {
  const checks = {
    ...(jwt.issuer === undefined ? {} : { issuer: jwt.issuer }),
    ...(jwt.audience === undefined ? {} : { audience: jwt.audience }),
    ...(jwt.rolesClaim === undefined ? {} : { rolesClaim: jwt.rolesClaim }),
    ...(jwt.requireExp === undefined ? {} : { requireExp: jwt.requireExp }),
    ...(jwt.maxTokenAge === undefined ? {} : { maxTokenAge: jwt.maxTokenAge }),
  };
  if (jwt.jwksUrl !== undefined) return { jwksUrl: jwt.jwksUrl, ...checks };
  const key = jwt.key ?? '';
  return { key: key.startsWith('-----BEGIN') ? createPublicKey(key) : key, ...checks };
}

/** Accepts the login token of this run as `login`, API keys from the log, and JWTs when configured. */
function authenticator(
  token: string,
  login: Principal,
  keys: ApiKeyStore,
  jwt: ServeSettings['jwt'],
): Authenticate {
  const expected = Buffer.from(token);
  const byKey = apiKeyAuth(keys);
  const byJwt = jwt === undefined ? undefined : jwtAuth(jwtOptions(jwt));
  return async (request) => {
    const given = Buffer.from(bearerToken(request) ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return login;
    return (await byKey(request)) ?? (await byJwt?.(request)) ?? null;
  };
}

/**
 * `parley serve`: the agent of `--model`/`--tools`/`--mode`/`--cwd` (as in
 * `parley chat`) as an HTTP service, on an embedded SQLite file or, with
 * `--db postgres://…`, on Postgres shared with other nodes; the rest from
 * `--config` (flags win). Runs until the process is asked to stop; then
 * running replies get a grace period, and the database is closed.
 * Resolves to the exit code.
 */
export async function runServe(args: ServeArgs, environment: ServeEnvironment): Promise<number> {
  const { env } = environment;
  const config = args.config === undefined ? {} : await loadServeConfig(args.config);
  const settings = mergeServeSettings(config, args);
  // Started here, not around the command: the config file may switch it on.
  return await withTelemetry(env, () => serve(args, settings, environment), settings.telemetry);
}

async function serve(
  args: ServeArgs,
  settings: ServeSettings,
  environment: ServeEnvironment,
): Promise<number> {
  const { write, env } = environment;
  const cwd = resolve(settings.cwd ?? process.cwd());
  if ((await stat(cwd).catch(() => undefined))?.isDirectory() !== true) {
    throw new UsageError(`--cwd ${cwd} is not a directory.`);
  }
  const spec = settings.model ?? defaultModelSpec(env);
  if (spec === undefined) {
    throw new UsageError(`No API key found and no --model given (try --model ${demoSpec}).`);
  }
  const host = settings.host ?? '127.0.0.1';
  const backend = await openBackend(
    {
      ...(settings.db === undefined ? {} : { db: settings.db }),
      ...(settings.schema === undefined ? {} : { schema: settings.schema }),
      ...(settings.prepare === undefined ? {} : { prepare: settings.prepare }),
      ...(settings.data === undefined ? {} : { data: settings.data }),
    },
    (error) => write(`warning: ${error.message}\n`),
  );
  const { log, store } = backend;
  try {
    const liveKeys = (await log.listKeys()).filter((key) => key.revokedAt === null);
    if (!isLoopback(host) && liveKeys.length === 0 && settings.jwt === undefined) {
      throw new UsageError(
        `Refusing to serve on ${host} without API keys: create one with "parley keys create NAME", ` +
          'configure "jwt", or serve on 127.0.0.1.',
      );
    }
    const toolNames =
      settings.tools === undefined ? [...builtInToolNames] : parseToolList(settings.tools);
    const setup = await buildSetup(
      parseModelChoice(spec),
      toolNames,
      cwd,
      serverKey(settings),
      env,
      settings.tools !== undefined,
    );
    const token = randomBytes(24).toString('base64url');
    const login: Principal = { id: approverName(env), roles: ['approver'] };
    const rateLimit =
      settings.rateLimit === undefined ? undefined : await backend.rateLimit(settings.rateLimit);
    const server = createServer({
      store,
      log,
      agent: {
        name: 'assistant',
        systemPrompt: setup.systemPrompt,
        model: setup.model,
        toolkit: new Toolkit(setup.tools),
        permission: {
          mode: settings.mode ?? 'default',
          workingDirectories: [cwd],
          rules: policyRules(settings.rules),
        },
        ...(args.parkTimeout === undefined ? {} : { parkTimeout: args.parkTimeout }),
        telemetry: { captureContent: captureContentWanted(env, settings.telemetry) },
      },
      authenticate: authenticator(token, login, log, settings.jwt),
      logger: serveLogger(),
      ...(settings.leaseMs === undefined ? {} : { lease: settings.leaseMs }),
      ...(settings.expireEveryMs === undefined ? {} : { expireEveryMs: settings.expireEveryMs }),
      ...(settings.graceMs === undefined ? {} : { graceMs: settings.graceMs }),
      ...(settings.bodyLimit === undefined ? {} : { bodyLimit: settings.bodyLimit }),
      ...(settings.streamAuthCheckMs === undefined
        ? {}
        : { streamAuthCheckMs: settings.streamAuthCheckMs }),
      ...(settings.streamLimits === undefined ? {} : { streamLimits: settings.streamLimits }),
      ...(settings.maxJsonDepth === undefined ? {} : { maxJsonDepth: settings.maxJsonDepth }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
      ...(setup.sandbox === undefined ? {} : { sandbox: setup.sandbox }),
    });
    const { url } = await server.listen({ port: settings.port ?? 8787, host });
    write(`parley serve · ${spec} · ${url}\n`);
    for (const note of setup.notes) write(`${note}\n`);
    write(`${settings.db === undefined ? 'data' : 'db'} ${backend.where}\n`);
    write(`login token (as ${login.id}, this run only): ${token}\n`);
    write(`  web UI: ${url}/?token=${token}\n`);
    write(`  curl -H "Authorization: Bearer ${token}" ${url}/v1/sessions\n`);
    await environment.stopRequested;
    write('Stopping: running replies get a moment to park or end…\n');
    await server.close();
    write('Stopped.\n');
    return 0;
  } finally {
    await backend.close();
  }
}
