import { createHash } from 'node:crypto';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { Agent, Sessions } from '@parley/core';
import type {
  AgentEvent,
  AgentState,
  AuditRecord,
  PermissionMode,
  ReplyInput,
  SessionAgentOptions,
  StoredSession,
} from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { permissionModes } from './args.js';
import { SessionFileError, decodeSession } from './session-file.js';

/**
 * The console's session: one SQLite file (`@parley/store-sqlite`) holding
 * one session under the fixed id `chat`. Replies run through core's
 * `Sessions`, which saves after every step with the version check and
 * writes the audit trail; the console's own settings live in the state's
 * `metadata.parleyChat`, so the file alone reopens the session as it was.
 */

/** The id of the console's session inside its SQLite file. */
export const chatSessionId = 'chat';

/** The key of the console's settings in `AgentState.metadata`. */
export const settingsKey = 'parleyChat';

/** What the console keeps in the state's metadata to reopen a session as it was. */
export type ChatSettings = {
  /** The model spec, e.g. `scripted:demo` or `openai:gpt-4.1-mini`. */
  model: string;
  /** The built-in tools that were enabled. */
  tools: string[];
  /** The working directory the tools ran in. */
  cwd: string;
  /** The permission mode (also in the state's permission context, which is what applies). */
  mode: PermissionMode;
};

const settingsSchema = z.object({
  model: z.string(),
  tools: z.array(z.string()),
  cwd: z.string(),
  mode: z.enum(permissionModes),
});

/** The console's settings stored in `state`, undefined when there are none. */
export function settingsOf(state: AgentState, path: string): ChatSettings | undefined {
  const stored = state.metadata?.[settingsKey];
  if (stored === undefined) return undefined;
  const parsed = settingsSchema.safeParse(stored);
  if (!parsed.success) {
    throw new SessionFileError(path, `its metadata.${settingsKey} is not the console's settings`);
  }
  return parsed.data;
}

/** `state` with `settings` in its metadata and their mode in its permission context. */
export function withSettings(state: AgentState, settings: ChatSettings): AgentState {
  return {
    ...state,
    permission: { ...state.permission, mode: settings.mode },
    metadata: { ...state.metadata, [settingsKey]: settings },
  };
}

/** Where sessions go when `--session` is not given: `$PARLEY_HOME/sessions/<id>.sqlite`. */
export function defaultSessionPath(env: NodeJS.ProcessEnv, name: string): string {
  const stateHome = env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state');
  const home = env['PARLEY_HOME'] ?? join(stateHome, 'parley');
  return join(home, 'sessions', `${name}.sqlite`);
}

/** A short name derived from the session file's path (the demo keeps its notes under it). */
export function sessionKey(path: string): string {
  return createHash('sha256').update(path).digest('hex').slice(0, 16);
}

/** Whether `path` is a JSON session file of an earlier version (by its name or first bytes). */
export async function isJsonSessionFile(path: string): Promise<boolean> {
  if (path.endsWith('.json')) return true;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return false;
    throw error;
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').trimStart().startsWith('{');
  } finally {
    await handle.close();
  }
}

/** Where a JSON session file's migrated copy goes: beside it, ending in `.sqlite`. */
export function migratedPath(jsonPath: string): string {
  return `${jsonPath.replace(/\.json$/, '')}.sqlite`;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/**
 * Copies a JSON session file into a new SQLite session file beside it (see
 * `migratedPath`) and returns that path; the JSON file is left as it was.
 * When the SQLite file exists already (migrated before), it is returned as is.
 */
export async function migrateJsonSession(jsonPath: string): Promise<string> {
  const target = migratedPath(jsonPath);
  if (await exists(target)) return target;
  const { settings, state } = decodeSession(await readFile(jsonPath, 'utf8'), jsonPath);
  const store = new SqliteSessionStore({ path: target });
  try {
    const moved = { ...state, sessionId: chatSessionId };
    await store.save(
      chatSessionId,
      withSettings(moved, { ...settings, mode: state.permission.mode }),
      0,
    );
  } finally {
    await store.close();
  }
  return target;
}

/** How `ChatSession.start` sets the session up. */
export type ChatStart = {
  /** The agent every reply runs on (the state comes from the store). */
  agent: SessionAgentOptions;
  settings: ChatSettings;
  /** Who answers the prompts, written into the audit trail. */
  approver: string;
};

/**
 * How long a console's running reply holds its session unless renewed: a
 * console reopened after a kill waits this long at most, so it is shorter
 * than the runner's default (renewing it costs a write every few seconds).
 */
const CONSOLE_LEASE_MS = 10_000;

/** One open console session (see the module comment). */
export class ChatSession {
  private sessions: Sessions | undefined;
  private approver = '';

  private constructor(
    /** The SQLite file. */
    readonly path: string,
    private readonly store: SqliteSessionStore,
    private stored: StoredSession | undefined,
  ) {}

  /** Opens (creating it if missing) the SQLite file at `path` and reads the session in it. */
  static async open(path: string): Promise<ChatSession> {
    await mkdir(dirname(path), { recursive: true });
    let store: SqliteSessionStore;
    try {
      store = new SqliteSessionStore({ path });
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new SessionFileError(path, problem, { cause: error });
    }
    try {
      return new ChatSession(path, store, await store.load(chatSessionId));
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** Whether the file held a session when it was opened. */
  get existed(): boolean {
    return this.stored !== undefined;
  }

  /** The settings stored with the session, if any. */
  storedSettings(): ChatSettings | undefined {
    return this.stored === undefined ? undefined : settingsOf(this.stored.state, this.path);
  }

  /** The session's state as last saved. */
  get state(): AgentState {
    if (this.stored === undefined) throw new Error('The chat session has not been started.');
    return this.stored.state;
  }

  /** Until when a reply running in some console holds the session, as last read. */
  get leaseUntil(): string | undefined {
    return this.stored?.leaseUntil;
  }

  /** Reads the saved session again. */
  async refresh(): Promise<void> {
    this.stored = (await this.store.load(chatSessionId)) ?? this.stored;
  }

  /**
   * Creates the session (a fresh state with the settings) or stores changed
   * settings in the existing one, each with the version check, and makes it
   * ready for replies.
   */
  async start(options: ChatStart): Promise<void> {
    const { settings } = options;
    const current = this.stored;
    const state =
      current === undefined
        ? new Agent({
            ...options.agent,
            sessionId: chatSessionId,
            permission: { mode: settings.mode, workingDirectories: [settings.cwd] },
          }).state
        : current.state;
    const next = withSettings(state, settings);
    if (current === undefined || JSON.stringify(next) !== JSON.stringify(current.state)) {
      const version = await this.store.save(chatSessionId, next, current?.version ?? 0);
      this.stored = { state: next, version };
    }
    this.approver = options.approver;
    this.sessions = new Sessions({
      store: this.store,
      agent: options.agent,
      lease: CONSOLE_LEASE_MS,
    });
  }

  /**
   * Runs a reply (or answers the parked one) through `Sessions`, which saves
   * every step; afterwards `state` is what was saved. Aborting `signal`
   * interrupts the reply.
   */
  async *replyStream(
    input: ReplyInput | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    if (this.sessions === undefined) throw new Error('The chat session has not been started.');
    try {
      yield* this.sessions.replyStream(chatSessionId, input, { approver: this.approver, signal });
    } finally {
      await this.refresh();
    }
  }

  /** The session's audit trail: who decided what about which tool call. */
  audit(): Promise<AuditRecord[]> {
    return this.store.listAudit(chatSessionId);
  }

  /** Closes the database file. */
  close(): Promise<void> {
    return this.store.close();
  }
}
