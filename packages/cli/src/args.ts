import { parseArgs } from 'node:util';
import type { PermissionMode } from '@parley/core';
import { modelSpecForms } from './model-spec.js';
import { builtInToolNames } from './tool-set.js';

/** The permission modes `--mode` accepts (SPEC section 6). */
export const permissionModes = [
  'default',
  'accept_edits',
  'explore',
  'bypass',
  'dont_ask',
] as const satisfies readonly PermissionMode[];

/** The options of `parley chat`, as given (unset ones are left out). */
export type ChatArgs = {
  model?: string;
  mode?: PermissionMode;
  tools?: string;
  cwd?: string;
  session?: string;
  mcp?: string;
};

/** The options of `parley serve`, as given (unset ones are left out). */
export type ServeArgs = {
  model?: string;
  mode?: PermissionMode;
  tools?: string;
  cwd?: string;
  host?: string;
  port?: number;
  data?: string;
  parkTimeout?: number;
  db?: string;
  config?: string;
};

/** Where `parley keys` finds the keys: `--data`, `--db`, or the database of `--config`. */
export type KeysPlace = { data?: string; db?: string; config?: string };

/** What `parley keys` is asked to do. */
export type KeysArgs = KeysPlace &
  (
    | { action: 'create'; principal: string; roles: string[] }
    | { action: 'list' }
    | { action: 'revoke'; id: string }
  );

/** What the command line asks for. */
export type Command =
  | { kind: 'chat'; args: ChatArgs }
  | { kind: 'serve'; args: ServeArgs }
  | { kind: 'keys'; args: KeysArgs }
  | { kind: 'help'; text: string };

/** A command line that cannot be run; the message says what to change. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The help text. */
export const usage = `Usage: parley chat [options]
       parley serve [--model SPEC] [--mode MODE] [--tools LIST] [--cwd DIR]
                    [--host HOST] [--port PORT] [--data DIR | --db URL]
                    [--config FILE] [--park-timeout MS]
       parley keys create PRINCIPAL [--role approver] | keys list | keys revoke ID
                    [--data DIR | --db URL | --config FILE]

An interactive console for a Parley agent: it streams the model's replies,
asks you before tools run, and saves the session after every step.

Options:
  --model SPEC     ${modelSpecForms.join('\n                   ')}
                   (default: the first provider with an API key in the
                   environment; without one, the scripted demo is offered)
  --mode MODE      permission mode: ${permissionModes.join(', ')} (default: default)
  --tools LIST     built-in tools: all, none, or a list of ${builtInToolNames.join(',')}
                   (default: all; AskUser is always on)
  --cwd DIR        the directory the tools work in (default: the current one)
  --session PATH   the session's SQLite file: saved after every step; give it
                   again to resume a parked reply where it stopped (a JSON
                   session of an earlier version is copied to PATH.sqlite)
  --mcp FILE       MCP servers' tools, from a JSON config in the usual shape
                   ({"mcpServers": {...}}); give it again when resuming
  -h, --help       show this help

parley serve: the agent as an HTTP service (see docs/guides/serving.md),
its sessions, events and API keys in DIR/parley.sqlite (default .parley),
or with --db postgres://… in Postgres, shared by every node started on it,
on HOST:PORT (default 127.0.0.1:8787). It prints its URL and a login token.
On any address but a loopback one it starts only with an API key or JWT.
--config FILE reads the rest from JSON (parley.config.json: db, schema,
host, port, model, tools, mode, cwd, rateLimit, jwt, leaseMs,
expireEveryMs, graceMs, bodyLimit, streamAuthCheckMs, streamLimits,
maxJsonDepth, telemetry); flags win over the file.
OTEL_EXPORTER_OTLP_ENDPOINT (or the file's telemetry.endpoint) exports
traces and metrics over OTLP/HTTP (see docs/guides/tracing.md).
--park-timeout MS: how long a parked reply waits for its answers before it
expires (default: no limit).
parley keys: create (the token is printed once), list, revoke API keys in
the same --data folder or --db database.

Keys: Ctrl-C while the model answers interrupts the reply; Ctrl-C at a
prompt leaves the reply parked, saves the session and exits.`;

/** The help of `parley serve` (`parley serve --help`, `parley help serve`). */
export const serveUsage = `Usage: parley serve [--model SPEC] [--mode MODE] [--tools LIST] [--cwd DIR]
                    [--host HOST] [--port PORT] [--data DIR | --db URL]
                    [--config FILE] [--park-timeout MS]

The agent as an HTTP service with a web UI (see docs/guides/serving.md). It
prints the web UI's address with a login token, and keeps its sessions,
events and API keys in DIR/parley.sqlite, or in Postgres with --db.

Options:
  --model SPEC     ${modelSpecForms.join('\n                   ')}
                   (default: the first provider with an API key in the
                   environment; without one, give --model scripted:demo)
  --mode MODE      permission mode: ${permissionModes.join(', ')} (default: default)
  --tools LIST     built-in tools: all, none, or a list of ${builtInToolNames.join(',')}
                   (default: all; AskUser is always on)
  --cwd DIR        the directory the tools work in (default: the current one)
  --host HOST      the address to listen on (default: 127.0.0.1); on any
                   address but a loopback one it starts only with an API key
                   or JWT
  --port PORT      the port (default: 8787; 0 picks a free one)
  --data DIR       the folder of parley.sqlite (default: .parley)
  --db URL         postgres://…: one database shared by every node on it
  --config FILE    the rest from JSON (parley.config.json: db, schema, host,
                   port, model, tools, mode, cwd, rateLimit, jwt, leaseMs,
                   expireEveryMs, graceMs, bodyLimit, streamAuthCheckMs,
                   streamLimits, maxJsonDepth); flags win over the file
  --park-timeout MS  how long a parked reply waits for its answers before it
                   expires (default: no limit)
  -h, --help       show this help

API keys: parley keys create PRINCIPAL [--role approver] | keys list | keys revoke ID`;

/** The help of `parley keys`. */
export const keysUsage = `Usage: parley keys create PRINCIPAL [--role approver]
       parley keys list
       parley keys revoke ID
                    [--data DIR | --db URL | --config FILE]

API keys of \`parley serve\`: create prints the token once; list shows them;
revoke stops one working. Keys live in the same --data folder or --db
database as the server's sessions.`;

/** The help for `command` (the general help for chat or none). */
function helpFor(command: string | undefined): Command {
  if (command === 'serve') return { kind: 'help', text: serveUsage };
  if (command === 'keys') return { kind: 'help', text: keysUsage };
  return { kind: 'help', text: usage };
}

function isMode(value: string): value is PermissionMode {
  return permissionModes.some((mode) => mode === value);
}

/** Parses the arguments after `parley`. */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: 'string' },
        mode: { type: 'string' },
        tools: { type: 'string' },
        cwd: { type: 'string' },
        session: { type: 'string' },
        mcp: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        data: { type: 'string' },
        'park-timeout': { type: 'string' },
        db: { type: 'string' },
        config: { type: 'string' },
        role: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (values.help === true) return helpFor(command);
  if (command === undefined) return helpFor(undefined);
  if (command === 'help') return helpFor(extra[0]);
  const foreign = (names: string[]): void => {
    const given = names.find((name) => name in values);
    if (given !== undefined) {
      throw new UsageError(`--${given} is not an option of "parley ${command ?? ''}".`);
    }
  };
  if (command === 'serve') {
    foreign(['session', 'mcp', 'role']);
    if (extra.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(extra[0])}.`);
    return { kind: 'serve', args: serveArgs(values) };
  }
  if (command === 'keys')
    foreign(['model', 'mode', 'tools', 'cwd', 'session', 'mcp', 'host', 'port', 'park-timeout']);
  if (command === 'keys') return { kind: 'keys', args: keysArgs(extra, values) };
  if (command !== 'chat')
    throw new UsageError(`Unknown command ${JSON.stringify(command)}; try "parley chat".`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(extra[0])}.`);
  foreign(['host', 'port', 'data', 'role', 'db', 'config', 'park-timeout']);
  const args: ChatArgs = {};
  if (values.model !== undefined) args.model = values.model;
  if (values.mode !== undefined) args.mode = modeOf(values.mode);
  if (values.tools !== undefined) args.tools = values.tools;
  if (values.cwd !== undefined) args.cwd = values.cwd;
  if (values.session !== undefined) args.session = values.session;
  if (values.mcp !== undefined) args.mcp = values.mcp;
  return { kind: 'chat', args };
}

/** The parsed option values `parseArgs` gives for the options above. */
type OptionValues = {
  model?: string | undefined;
  mode?: string | undefined;
  tools?: string | undefined;
  cwd?: string | undefined;
  host?: string | undefined;
  port?: string | undefined;
  data?: string | undefined;
  'park-timeout'?: string | undefined;
  db?: string | undefined;
  config?: string | undefined;
  role?: string[] | undefined;
};

function modeOf(text: string): PermissionMode {
  if (!isMode(text)) {
    throw new UsageError(
      `--mode ${JSON.stringify(text)}: choose one of ${permissionModes.join(', ')}.`,
    );
  }
  return text;
}

function serveArgs(values: OptionValues): ServeArgs {
  const args: ServeArgs = {};
  if (values.model !== undefined) args.model = values.model;
  if (values.mode !== undefined) args.mode = modeOf(values.mode);
  if (values.tools !== undefined) args.tools = values.tools;
  if (values.cwd !== undefined) args.cwd = values.cwd;
  if (values.host !== undefined) args.host = values.host;
  if (values.data !== undefined) args.data = values.data;
  if (values.db !== undefined) args.db = values.db;
  if (values.config !== undefined) args.config = values.config;
  if (values.data !== undefined && values.db !== undefined) {
    throw new UsageError('Give --data (SQLite) or --db (Postgres), not both.');
  }
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535) {
      throw new UsageError(
        `--port ${JSON.stringify(values.port)}: give a port number (0 for any).`,
      );
    }
    args.port = port;
  }
  const parkTimeout = values['park-timeout'];
  if (parkTimeout !== undefined) {
    if (!/^\d{1,12}$/.test(parkTimeout) || Number(parkTimeout) === 0) {
      throw new UsageError(
        `--park-timeout ${JSON.stringify(parkTimeout)}: give a number of milliseconds above 0.`,
      );
    }
    args.parkTimeout = Number(parkTimeout);
  }
  return args;
}

function keysArgs(extra: string[], values: OptionValues): KeysArgs {
  const [action, target, ...rest] = extra;
  if (rest.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])}.`);
  if (values.data !== undefined && values.db !== undefined) {
    throw new UsageError('Give --data (SQLite) or --db (Postgres), not both.');
  }
  const data: KeysPlace = {};
  if (values.data !== undefined) data.data = values.data;
  if (values.db !== undefined) data.db = values.db;
  if (values.config !== undefined) data.config = values.config;
  if (action === 'list' && target === undefined) return { action, ...data };
  if (action === 'create' && target !== undefined) {
    return { action, principal: target, roles: values.role ?? [], ...data };
  }
  if (action === 'revoke' && target !== undefined) return { action, id: target, ...data };
  throw new UsageError(
    'Use "parley keys create PRINCIPAL", "parley keys list" or "parley keys revoke ID".',
  );
}
