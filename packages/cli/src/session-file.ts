import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ParleyError, parseAgentState } from '@parley/core';
import type { AgentState } from '@parley/core';

/**
 * The console's session persistence, in one module so it can move to
 * `@parley/store-sqlite` without touching the chat loop: a JSON file,
 * rewritten atomically (temporary file, fsync, rename) after every step.
 */

/** What the console keeps beside the agent state to reopen a session as it was. */
export type SessionSettings = {
  /** The model spec, e.g. `scripted:demo` or `openai:gpt-4.1-mini`. */
  model: string;
  /** The built-in tools that were enabled. */
  tools: string[];
  /** The working directory the tools ran in. */
  cwd: string;
};

/** A session as stored: the settings and the agent state. */
export type SavedSession = { settings: SessionSettings; state: AgentState };

/** A session file that cannot be read as a session. */
export class SessionFileError extends ParleyError {
  constructor(path: string, problem: string, options: { cause?: unknown } = {}) {
    super('session_file_invalid', `Session file ${path} cannot be read: ${problem}`, options);
  }
}

const fileFormat = 'parley-chat-session';

const fileSchema = z.object({
  format: z.literal(fileFormat),
  version: z.literal(1),
  savedAt: z.string(),
  settings: z.object({ model: z.string(), tools: z.array(z.string()), cwd: z.string() }),
  state: z.unknown(),
});

/** The file's text for a session (pretty JSON, so a person can read it). */
export function encodeSession(session: SavedSession, savedAt = new Date().toISOString()): string {
  const file = { format: fileFormat, version: 1, savedAt, ...session };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Reads a session file's text; the agent state is validated and migrated by core. */
export function decodeSession(text: string, path: string): SavedSession {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SessionFileError(path, 'it is not JSON', { cause: error });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) throw new SessionFileError(path, 'it is not a parley chat session file');
  try {
    return { settings: parsed.data.settings, state: parseAgentState(parsed.data.state) };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    throw new SessionFileError(path, problem, { cause: error });
  }
}

/** Where sessions go when `--session` is not given: `$PARLEY_HOME/sessions/<id>.json`. */
export function defaultSessionPath(env: NodeJS.ProcessEnv, sessionId: string): string {
  const stateHome = env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state');
  const home = env['PARLEY_HOME'] ?? join(stateHome, 'parley');
  return join(home, 'sessions', `${sessionId}.json`);
}

let temporaryCounter = 0;

/** Writes `text` to `path` so that readers see the old file or the new one, never half of one. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  temporaryCounter += 1;
  const temporary = `${path}.${process.pid}.${temporaryCounter}.tmp`;
  try {
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * One session file. Saves are serialized in call order and each takes a
 * snapshot of the state when called, so it can be used as the agent's
 * checkpoint hook (which must serialize before its first await).
 */
export class SessionFile {
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** The saved session, or undefined when the file does not exist yet. */
  async load(): Promise<SavedSession | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
      throw error;
    }
    return decodeSession(text, this.path);
  }

  /** Saves the state (snapshotted now) with the settings. */
  save(state: AgentState, settings: SessionSettings): Promise<void> {
    const text = encodeSession({ settings, state });
    const next = this.chain.then(() => writeFileAtomic(this.path, text));
    this.chain = next.catch(() => undefined);
    return next;
  }
}
