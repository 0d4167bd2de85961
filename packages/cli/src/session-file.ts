import { z } from 'zod';
import { ParleyError, parseAgentState } from '@parley/core';
import type { AgentState } from '@parley/core';

/**
 * The JSON session files of earlier `parley chat` versions
 * (`format: "parley-chat-session"`). They are only read now, to migrate
 * them into a SQLite session file (see `chat-session.ts`).
 */

/** What the JSON file kept beside the agent state. */
export type JsonSessionSettings = {
  /** The model spec, e.g. `scripted:demo` or `openai:gpt-4.1-mini`. */
  model: string;
  /** The built-in tools that were enabled. */
  tools: string[];
  /** The working directory the tools ran in. */
  cwd: string;
};

/** A JSON session file's content: the settings and the agent state. */
export type JsonSession = { settings: JsonSessionSettings; state: AgentState };

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

/** A JSON session file's text (as earlier versions wrote it; tests make old files with it). */
export function encodeSession(session: JsonSession, savedAt = new Date().toISOString()): string {
  const file = { format: fileFormat, version: 1, savedAt, ...session };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Reads a JSON session file's text; the agent state is validated and migrated by core. */
export function decodeSession(text: string, path: string): JsonSession {
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
