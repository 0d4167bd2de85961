import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AskUser } from '@parley/core';
import type { AnyTool, ChatModel } from '@parley/core';
import { commandsModel, commandsSystemPrompt, commandsTools } from './commands-script.js';
import { demoModel, demoSystemPrompt } from './demo-script.js';
import { demoTools } from './demo-tools.js';
import { UsageError } from './args.js';
import { createChatModel } from './model-spec.js';
import type { ModelChoice } from './model-spec.js';
import { createTools, sandboxOf } from './tool-set.js';
import type { BuiltInToolName } from './tool-set.js';

const systemPrompt = (cwd: string): string =>
  `You are a helpful assistant working in ${cwd}. Use the tools when they help; ` +
  'the user is asked before anything with side effects runs. When a decision is theirs, ask with AskUser.';

/**
 * The key of a server's scripted notes folder: one per place its sessions
 * live (the SQLite file of `data`, or the Postgres URL and schema), so two
 * servers never write each other's notes, and a restart finds its own.
 */
export function serverKey(place: {
  data?: string | undefined;
  db?: string | undefined;
  schema?: string | undefined;
}): string {
  const where =
    place.db === undefined
      ? `sqlite:${join(resolve(place.data ?? '.parley'), 'parley.sqlite')}`
      : `postgres:${place.db}#${place.schema ?? ''}`;
  return `serve-${createHash('sha256').update(where).digest('hex').slice(0, 16)}`;
}

/** What an agent of the command is made of: its model, tools, system prompt, and lines to show about them. */
export type Setup = {
  model: ChatModel;
  tools: AnyTool[];
  systemPrompt: string;
  notes: string[];
  /** The sandbox Bash runs commands in, when Bash is one of the tools. */
  sandbox?: 'bubblewrap' | 'none';
};

/**
 * Builds the model and tools for a model choice: the scripted demo (its own
 * tools, writing under the system temp folder at `key`), the scripted
 * commands (its own tools, and the built-in `toolNames` when `toolsChosen`,
 * i.e. `--tools` was given, for its `use TOOL {json}` command) or a real
 * model with the built-in tools `toolNames` working in `cwd`, and AskUser.
 * The demo's script knows only its own tools: `--tools` with it is refused
 * rather than ignored.
 */
export async function buildSetup(
  choice: ModelChoice,
  toolNames: BuiltInToolName[],
  cwd: string,
  key: string,
  env: NodeJS.ProcessEnv,
  toolsChosen = false,
): Promise<Setup> {
  if (choice.kind === 'demo') {
    if (toolsChosen) {
      throw new UsageError(
        '--tools: the scripted demo runs its own tools only; use --model scripted:commands ' +
          '(its "use TOOL {json}" calls any offered tool) or a real model.',
      );
    }
    const directory = join(tmpdir(), 'parley-demo', key);
    const paceMs = Number(env['PARLEY_DEMO_PACE_MS'] ?? '12');
    const chunkMs = Number.isFinite(paceMs) && paceMs >= 0 ? paceMs : 12;
    return {
      model: demoModel({ chunkMs, firstChunkMs: chunkMs * 30 }),
      tools: demoTools(directory),
      systemPrompt: demoSystemPrompt,
      notes: [`The demo's notes go to ${directory}`],
    };
  }
  if (choice.kind === 'commands') {
    const directory = join(tmpdir(), 'parley-commands', key);
    const builtIn = toolsChosen ? await createTools(toolNames, cwd) : [];
    const notes = [`The scripted commands model; notes go to ${directory}`];
    if (builtIn.length > 0) {
      notes.push(
        `tools ${builtIn.map((item) => item.name).join(', ')} · in ${cwd} (use TOOL {json})`,
      );
    }
    return {
      model: commandsModel(),
      tools: [...commandsTools(directory), ...builtIn],
      systemPrompt: commandsSystemPrompt,
      notes,
    };
  }
  const tools = await createTools(toolNames, cwd);
  const names = [...tools.map((item) => item.name), AskUser.name].join(', ');
  const sandbox = await sandboxOf(tools);
  const sandboxNote =
    sandbox === undefined
      ? []
      : [
          sandbox === 'none'
            ? 'sandbox none: Bash runs commands bare (install bubblewrap; docs/guides/sandbox.md)'
            : `sandbox ${sandbox}: Bash commands run in it`,
        ];
  return {
    model: await createChatModel(choice.spec),
    tools: [...tools, AskUser],
    systemPrompt: systemPrompt(cwd),
    notes: [`tools ${names} · in ${cwd}`, ...sandboxNote],
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}
