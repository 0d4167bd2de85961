import { input } from '@inquirer/prompts';
import {
  askUserResult,
  externalExecutionResultEvent,
  parseToolInput,
  userConfirmResultEvent,
} from '@parley/core';
import type {
  AgentEvent,
  AgentState,
  InputEvent,
  ReplyInput,
  ToolCallBlock,
  Toolkit,
} from '@parley/core';
import { askUserQuestions, promptAskUser } from './ask-user-prompt.js';
import { MCP_ELICITATION, mcpElicitationResult } from '@parley/mcp';
import { promptElicitation } from './elicitation-prompt.js';
import { promptConfirm } from './confirm-prompt.js';
import { promptExternal } from './external-prompt.js';
import { oneLine } from './format.js';
import { inert } from './inert.js';
import type { EventRenderer, Screen } from './renderer.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';
import type { WaitingCall } from './waiting-calls.js';
import { waitingCalls } from './waiting-calls.js';

/** Lets the loop take Ctrl-C while a reply streams; returns the function that gives it back. */
export type InterruptSource = (onInterrupt: () => void) => () => void;

/**
 * The session the loop talks to: its saved state (with the lease of a reply
 * running there, if any), and replies that save every step.
 */
export type ChatRunner = {
  readonly state: AgentState;
  readonly leaseUntil: string | undefined;
  /** Reads the saved state again. */
  refresh(): Promise<void>;
  replyStream(input: ReplyInput | undefined, signal: AbortSignal): AsyncIterable<AgentEvent>;
};

/** What the chat loop works with. */
export type ChatLoopOptions = {
  session: ChatRunner;
  toolkit: Toolkit;
  screen: Screen;
  colors: Colors;
  renderer: EventRenderer;
  interrupts: InterruptSource;
};

/** Words that end the chat at the input prompt. */
export const exitWords = new Set(['/exit', '/quit', 'exit', 'quit']);

/** Parses an edited input and checks it against the tool's schema. */
function checkInput(toolkit: Toolkit, toolCall: ToolCallBlock, raw: string): string | undefined {
  const found = toolkit.get(toolCall.name);
  if (found === undefined) return undefined;
  const parsed = parseToolInput(found, raw);
  return parsed.ok ? undefined : parsed.reason;
}

/** The tool's check of an external result's metadata. */
function checkMetadata(
  toolkit: Toolkit,
  toolCall: ToolCallBlock,
  metadata: Record<string, unknown> | undefined,
): string | undefined {
  const found = toolkit.get(toolCall.name);
  if (found === undefined) return undefined;
  const parsed = parseToolInput(found, toolCall.input);
  return parsed.ok ? found.checkResultMetadata(parsed.input, metadata) : undefined;
}

/** Asks the person about one waiting call and builds the event that answers it. */
async function answer(waiting: WaitingCall, options: ChatLoopOptions): Promise<InputEvent> {
  const { screen, colors, toolkit } = options;
  const { replyId, toolCall } = waiting;
  if (waiting.kind === 'confirm') {
    const result = await promptConfirm(
      toolCall,
      { screen, colors, checkInput: (call, raw) => checkInput(toolkit, call, raw) },
      waiting.ask,
    );
    return userConfirmResultEvent({ replyId, confirmResults: [result] });
  }
  if (toolCall.name === MCP_ELICITATION) {
    const reply = await promptElicitation(toolCall, { screen, colors });
    return externalExecutionResultEvent({
      replyId,
      executionResults: [mcpElicitationResult(toolCall, reply)],
    });
  }
  const questions = toolCall.name === 'AskUser' ? askUserQuestions(toolCall) : undefined;
  if (questions !== undefined) {
    const answers = await promptAskUser(questions, { screen, colors });
    return externalExecutionResultEvent({
      replyId,
      executionResults: [askUserResult(toolCall, answers)],
    });
  }
  const result = await promptExternal(toolCall, {
    screen,
    colors,
    checkMetadata: (call, metadata) => checkMetadata(toolkit, call, metadata),
  });
  return externalExecutionResultEvent({ replyId, executionResults: [result] });
}

/**
 * Runs one `replyStream` and renders it. Ctrl-C meanwhile aborts the reply
 * (core closes open calls, ends it as interrupted and saves that). Errors
 * the reply throws (a refused answer, say) are shown, not fatal.
 */
async function stream(input: ReplyInput | undefined, options: ChatLoopOptions): Promise<boolean> {
  const { session, renderer, colors, screen } = options;
  const controller = new AbortController();
  const release = options.interrupts(() => controller.abort());
  let ok = true;
  try {
    for await (const event of session.replyStream(input, controller.signal)) {
      renderer.handle(event);
    }
  } catch (error) {
    ok = false;
    renderer.finish();
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    screen.write(`${colors.red(`${glyphs.error} ${inert(oneLine(text))}`)}\n`);
  } finally {
    release();
    renderer.finish();
  }
  return ok;
}

/**
 * A reply saved as running under a lease that has not run out is held by
 * the console that ran it (alive elsewhere, or killed moments ago): says
 * so, waits until the lease runs out, reads the session again and returns
 * true. False when there is nothing to wait for.
 */
async function waitOutLease(options: ChatLoopOptions): Promise<boolean> {
  const { session, colors, screen } = options;
  const until = session.leaseUntil === undefined ? Number.NaN : Date.parse(session.leaseUntil);
  const wait = until - Date.now();
  if (!(wait > 0)) return false;
  const time = new Date(until).toLocaleTimeString();
  screen.write(
    `${colors.dim(`The console that was running this reply holds the session until ${time}; waiting…`)}\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, wait + LEASE_MARGIN_MS));
  await session.refresh();
  return true;
}

/** Waited past a lease's end, so that it has surely run out. */
const LEASE_MARGIN_MS = 50;

/**
 * The conversation: while the reply is parked, asks about the waiting calls
 * one at a time and sends each answer at once (an allowed call runs, and
 * its result shows, before the next question); otherwise reads the person's next
 * message. Returns when they leave with an exit word. Ctrl-C at a prompt
 * surfaces as inquirer's ExitPromptError; the parked reply is saved already.
 */
export async function runChatLoop(options: ChatLoopOptions): Promise<void> {
  const { session, colors, screen } = options;
  for (;;) {
    const next = waitingCalls(session.state)[0];
    if (next !== undefined) {
      await stream(await answer(next, options), options);
      continue;
    }
    if (session.state.reply?.status === 'running') {
      if (await waitOutLease(options)) continue;
      screen.write(
        `${colors.dim('Continuing the reply that was running when the session was saved…')}\n`,
      );
      if (!(await stream(undefined, options))) return;
      continue;
    }
    const text = await input({
      message: colors.bold('you'),
      theme: { prefix: { idle: colors.green(glyphs.user), done: colors.green(glyphs.user) } },
    });
    if (exitWords.has(text.trim().toLowerCase())) return;
    if (text.trim() === '') continue;
    await stream(text, options);
  }
}
