import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { confirm } from '@inquirer/prompts';
import { Toolkit } from '@parley/core';
import type { ChatArgs } from './args.js';
import { buildSetup } from './agent-setup.js';
import { approverName } from './login-name.js';
import { captureContentWanted } from './telemetry.js';
import type { Setup } from './agent-setup.js';
import { runChatLoop } from './chat-loop.js';
import type { InterruptSource } from './chat-loop.js';
import { demoLabel } from './demo-script.js';
import { defaultModelSpec, demoSpec, keyDefaults, parseModelChoice } from './model-spec.js';
import { EventRenderer } from './renderer.js';
import type { Screen } from './renderer.js';
import {
  ChatSession,
  defaultSessionPath,
  isJsonSessionFile,
  migrateJsonSession,
  sessionKey,
} from './chat-session.js';
import type { ChatSettings } from './chat-session.js';
import { Spinner } from './spinner.js';
import type { Colors } from './theme.js';
import { builtInToolNames, knownToolNames, parseToolList } from './tool-set.js';
import { loadMcpTools } from './mcp-tools.js';
import type { BuiltInToolName } from './tool-set.js';

/** The terminal and process the chat runs in (injected, so the set-up reads plainly). */
export type ChatEnvironment = {
  screen: Screen;
  colors: Colors;
  env: NodeJS.ProcessEnv;
  /** Whether a person is at the keyboard (stdin and stdout are terminals). */
  interactive: boolean;
  /** Whether to animate the spinner. */
  animate: boolean;
  interrupts: InterruptSource;
};

/** How the chat ended, for the exit code and the goodbye line. */
export type ChatOutcome = { code: number };

/** Resolves the model spec: flag, then the session's, then an API key, then the offered demo. */
async function chooseModel(
  args: ChatArgs,
  saved: ChatSettings | undefined,
  environment: ChatEnvironment,
): Promise<string | undefined> {
  const chosen = args.model ?? saved?.model ?? defaultModelSpec(environment.env);
  if (chosen !== undefined) return chosen;
  const { screen, colors } = environment;
  const keys = keyDefaults.map(({ variable }) => variable).join(' or ');
  screen.write(`${colors.yellow('No API key found')} (${keys}) and no --model given.\n`);
  if (!environment.interactive) {
    screen.write('Set a key, pass --model, or run "parley chat --model scripted:demo".\n');
    return undefined;
  }
  const demo = await confirm({
    message: `Run the scripted demo instead? (${demoLabel})`,
    default: true,
  });
  if (!demo) screen.write('Set an API key or pass --model (see "parley --help").\n');
  return demo ? demoSpec : undefined;
}

async function ensureDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory() !== true) throw new Error(`--cwd ${path} is not a directory.`);
}

/** The session file to open: `--session` (a JSON one migrated first), else a new default one. */
async function sessionPath(args: ChatArgs, environment: ChatEnvironment): Promise<string> {
  const { screen, colors, env } = environment;
  if (args.session === undefined) return defaultSessionPath(env, randomUUID());
  const given = resolve(args.session);
  if (!(await isJsonSessionFile(given))) return given;
  const target = await migrateJsonSession(given);
  screen.write(
    `${colors.yellow(`${given} is a JSON session file of an earlier parley.`)}\n` +
      `Copied it into ${target} (the JSON file is left as it was).\n`,
  );
  return target;
}

function shellQuoted(path: string): string {
  return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * `parley chat`: resolves the session, model and tools, then runs the chat
 * loop. Every step is saved in the SQLite session file by core's `Sessions`.
 * Ctrl-C at a prompt (inquirer's ExitPromptError) leaves the reply parked,
 * as it was saved, and the way back is printed.
 */
export async function runChat(args: ChatArgs, environment: ChatEnvironment): Promise<ChatOutcome> {
  const session = await ChatSession.open(await sessionPath(args, environment));
  try {
    return await runSession(args, environment, session);
  } finally {
    await session.close();
  }
}

async function runSession(
  args: ChatArgs,
  environment: ChatEnvironment,
  session: ChatSession,
): Promise<ChatOutcome> {
  const { env } = environment;
  const saved = session.storedSettings();
  const cwd = resolve(args.cwd ?? saved?.cwd ?? process.cwd());
  await ensureDirectory(cwd);
  const specText = await chooseModel(args, saved, environment);
  if (specText === undefined) return { code: 1 };
  const choice = parseModelChoice(specText);
  const toolNames: BuiltInToolName[] =
    args.tools !== undefined
      ? parseToolList(args.tools)
      : saved !== undefined
        ? knownToolNames(saved.tools)
        : [...builtInToolNames];
  const setup = await buildSetup(
    choice,
    toolNames,
    cwd,
    sessionKey(session.path),
    env,
    args.tools !== undefined,
  );
  const mcp = args.mcp === undefined ? undefined : await loadMcpTools(args.mcp);
  try {
    if (mcp !== undefined) {
      setup.tools.push(...mcp.tools);
      setup.notes.push(...mcp.notes);
    }
    return await runWithTools(args, environment, session, {
      setup,
      choice,
      specText,
      toolNames,
      cwd,
    });
  } finally {
    await mcp?.close();
  }
}

type Prepared = {
  setup: Setup;
  choice: ReturnType<typeof parseModelChoice>;
  specText: string;
  toolNames: BuiltInToolName[];
  cwd: string;
};

async function runWithTools(
  args: ChatArgs,
  environment: ChatEnvironment,
  session: ChatSession,
  prepared: Prepared,
): Promise<ChatOutcome> {
  const { screen, colors, env } = environment;
  const { setup, choice, specText, toolNames, cwd } = prepared;
  const saved = session.storedSettings();
  const resuming = session.existed;
  const mode = args.mode ?? saved?.mode ?? (resuming ? session.state.permission.mode : 'default');
  const toolkit = new Toolkit(setup.tools);
  await session.start({
    agent: {
      name: 'assistant',
      systemPrompt: setup.systemPrompt,
      model: setup.model,
      toolkit,
      telemetry: { captureContent: captureContentWanted(env) },
    },
    settings: { model: specText, tools: [...toolNames], cwd, mode },
    approver: approverName(env),
  });

  const label = choice.kind === 'demo' ? `  ${colors.yellow(`(${demoLabel})`)}` : '';
  screen.write(
    `${colors.bold('parley chat')} · ${specText}${label} · mode ${session.state.permission.mode}\n`,
  );
  screen.write(`${colors.dim(`session ${session.path}`)}\n`);
  for (const note of setup.notes) screen.write(`${colors.dim(note)}\n`);
  if (resuming && session.state.reply?.status === 'parked') {
    screen.write(`${colors.yellow('Resuming: the reply is waiting for you.')}\n`);
  } else {
    screen.write(colors.dim('Type a message; "/exit" leaves. Ctrl-C interrupts a reply.\n'));
  }

  const spinner = new Spinner({ write: (text) => screen.write(text) }, colors, environment.animate);
  const renderer = new EventRenderer(screen, colors, spinner, {
    isExternal: (name) => toolkit.get(name)?.external === true,
  });
  const resume = `parley chat --session ${shellQuoted(session.path)}`;
  try {
    await runChatLoop({
      session,
      toolkit,
      screen,
      colors,
      renderer,
      interrupts: environment.interrupts,
    });
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ExitPromptError')) throw error;
    renderer.finish();
    const parked = session.state.reply?.status === 'parked';
    screen.write(
      `\n${parked ? colors.yellow('The reply is parked, waiting for you.') : 'Bye.'} Session saved.\n` +
        `Resume with: ${colors.bold(resume)}\n`,
    );
    return { code: 0 };
  }
  screen.write(`Session saved. Resume with: ${colors.bold(resume)}\n`);
  return { code: 0 };
}
