import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The `parley` command from source: node with the `@parley/source` condition
 * runs src/main.ts through tsx, so these tests need no build. The packed
 * tarball's compiled bin is driven the same way by the packed-install test.
 */
export const parleyCommand = [
  'node',
  '--conditions=@parley/source',
  fileURLToPath(new URL('./parley-source.js', import.meta.url)),
];

/** Whether tmux can be run here. */
export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

let counter = 0;

/** Quotes one word for `sh -c`. */
const shellWord = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * A terminal a test drives like a person: a detached tmux session on a
 * private server socket (never the user's own tmux), running one command.
 * Keys go in with `send-keys`; the screen comes back with `capture-pane`.
 */
export class TmuxTerminal {
  private readonly socket = `parley-test-${process.pid}-${++counter}`;

  constructor(
    readonly options: { width: number; height: number; cwd: string; env: NodeJS.ProcessEnv },
  ) {}

  /** Starts `command` (argv); when it exits, the pane shows `[exit N]` and stays. */
  start(command: string[]): void {
    // The no-op trap keeps this shell alive when Ctrl-C reaches the whole
    // foreground group (as an interactive shell would); the command itself
    // gets the default disposition back.
    const line = `trap : INT; ${command.map(shellWord).join(' ')}; echo "[exit $?]"; sleep 600`;
    this.tmux(
      ['-f', '/dev/null', 'new-session', '-d', '-s', 'main'],
      ['-x', String(this.options.width), '-y', String(this.options.height)],
      ['-c', this.options.cwd, 'sh', '-c', line],
    );
    this.tmux(['set-option', '-t', 'main', 'history-limit', '5000']);
  }

  /** Presses keys, tmux names: `Enter`, `Down`, `Space`, `C-c`, … */
  press(...keys: string[]): void {
    for (const key of keys) this.tmux(['send-keys', '-t', 'main', key]);
  }

  /** Types text literally. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** The whole screen with its scrollback, wrapped lines joined. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'main']);
  }

  /**
   * Waits until the screen matches, and returns it. Counting matches lets a
   * test wait for the second prompt of the same kind.
   */
  async waitFor(
    pattern: RegExp | string,
    options: { count?: number; timeoutMs?: number } = {},
  ): Promise<string> {
    const count = options.count ?? 1;
    const deadline = Date.now() + (options.timeoutMs ?? 45_000);
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.screen();
      if (occurrences(screen, pattern) >= count) return screen;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    throw new Error(`Timed out waiting for ${String(pattern)} (x${count}). Screen:\n${screen}`);
  }

  /** Stops the private tmux server and everything running in it. */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { encoding: 'utf8' });
  }

  private tmux(...parts: string[][]): string {
    const result = spawnSync('tmux', ['-L', this.socket, ...parts.flat()], {
      encoding: 'utf8',
      env: this.options.env,
    });
    if (result.status !== 0) throw new Error(`tmux ${parts.flat().join(' ')}: ${result.stderr}`);
    return result.stdout;
  }
}

/** How often a pattern occurs in a text. */
export function occurrences(text: string, pattern: RegExp | string): number {
  if (typeof pattern === 'string') return text.split(pattern).length - 1;
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...text.matchAll(new RegExp(pattern.source, flags))].length;
}
