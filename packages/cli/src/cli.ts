import { TelemetryConfigError, withTelemetry } from './telemetry.js';
import { parseCommandLine, UsageError } from './args.js';
import type { InterruptSource } from './chat-loop.js';
import { ParleyError } from '@parley/core';
import { ModelSpecError } from './model-spec.js';
import { SessionFileError } from './session-file.js';
import { colorsFor } from './theme.js';
import { ToolListError } from './tool-set.js';

/**
 * Ctrl-C outside a prompt. While a reply streams, the chat loop takes it to
 * interrupt the reply; a second Ctrl-C before the reply has stopped ends
 * the process. With no reply streaming the default applies and the process
 * ends. Either way the session was saved at the agent's last checkpoint.
 */
function processInterrupts(): InterruptSource {
  const handlers: { onInterrupt: () => void; pressed: boolean }[] = [];
  process.on('SIGINT', () => {
    const handler = handlers.at(-1);
    if (handler === undefined || handler.pressed) process.exit(130);
    handler.pressed = true;
    handler.onInterrupt();
  });
  return (onInterrupt) => {
    const handler = { onInterrupt, pressed: false };
    handlers.push(handler);
    return () => {
      const at = handlers.indexOf(handler);
      if (at >= 0) handlers.splice(at, 1);
    };
  };
}

/** Resolves on the first SIGTERM or SIGINT: the service is asked to stop. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
}

/** Runs the `parley` command line; resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const colors = colorsFor(process.stdout, process.env);
  const write = (text: string): void => {
    process.stdout.write(text);
  };
  try {
    const command = parseCommandLine(argv);
    if (command.kind === 'help') {
      write(`${command.text}\n`);
      return 0;
    }
    if (command.kind === 'serve') {
      const { runServe } = await import('./serve.js');
      // It starts the SDK itself, once its config file is read.
      return await runServe(command.args, { write, env: process.env, stopRequested: stopSignal() });
    }
    if (command.kind === 'keys') {
      const { runKeys } = await import('./keys.js');
      return await runKeys(command.args, write);
    }
    // Loaded only now: the chat pulls in the model SDKs, the tools and the
    // store, which `--help` does not need (bench/cli-start.ts).
    const { runChat } = await import('./chat.js');
    const outcome = await withTelemetry(process.env, () =>
      runChat(command.args, {
        screen: { write, columns: () => process.stdout.columns || 80 },
        colors,
        env: process.env,
        interactive: process.stdin.isTTY && process.stdout.isTTY,
        animate: process.stdout.isTTY,
        interrupts: processInterrupts(),
      }),
    );
    return outcome.code;
  } catch (error) {
    // Ctrl-C at a prompt before the session exists (the demo offer): just leave.
    if (error instanceof Error && error.name === 'ExitPromptError') return 130;
    const known =
      error instanceof UsageError ||
      error instanceof ModelSpecError ||
      (error instanceof ParleyError && error.code === 'invalid_model_spec') ||
      error instanceof ToolListError ||
      error instanceof SessionFileError ||
      error instanceof TelemetryConfigError;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${colors.red('parley:')} ${message}\n`);
    if (
      !known &&
      error instanceof Error &&
      error.stack !== undefined &&
      process.env['PARLEY_DEBUG'] !== undefined
    ) {
      process.stderr.write(`${error.stack}\n`);
    }
    if (error instanceof UsageError) process.stderr.write('Run "parley --help" for the options.\n');
    return known ? 2 : 1;
  }
}
