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

/** What the command line asks for. */
export type Command = { kind: 'chat'; args: ChatArgs } | { kind: 'help' };

/** A command line that cannot be run; the message says what to change. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The help text. */
export const usage = `Usage: parley chat [options]

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

Keys: Ctrl-C while the model answers interrupts the reply; Ctrl-C at a
prompt leaves the reply parked, saves the session and exits.`;

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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { kind: 'help' };
  const [command, ...extra] = positionals;
  if (command === undefined) return { kind: 'help' };
  if (command === 'help') return { kind: 'help' };
  if (command !== 'chat')
    throw new UsageError(`Unknown command ${JSON.stringify(command)}; try "parley chat".`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(extra[0])}.`);
  const args: ChatArgs = {};
  if (values.model !== undefined) args.model = values.model;
  if (values.mode !== undefined) {
    if (!isMode(values.mode)) {
      throw new UsageError(
        `--mode ${JSON.stringify(values.mode)}: choose one of ${permissionModes.join(', ')}.`,
      );
    }
    args.mode = values.mode;
  }
  if (values.tools !== undefined) args.tools = values.tools;
  if (values.cwd !== undefined) args.cwd = values.cwd;
  if (values.session !== undefined) args.session = values.session;
  if (values.mcp !== undefined) args.mcp = values.mcp;
  return { kind: 'chat', args };
}
