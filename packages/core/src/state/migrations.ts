import { InvalidStateError } from '../errors/index.js';
import { AGENT_STATE_VERSION } from './types.js';

/** A stored state before validation: a JSON object of some schema version. */
export type StoredStateObject = Record<string, unknown>;

/**
 * One step of forward migration: turns a state of version `from` into one of
 * version `from + 1` (the runner stamps the new `schemaVersion`). It gets a
 * private copy, so it may change it in place, and should throw on input it
 * cannot convert; the runner reports that as `InvalidStateError`.
 */
export type AgentStateMigration = {
  from: number;
  description: string;
  migrate: (state: StoredStateObject) => StoredStateObject;
};

/**
 * The migrations of this build, in version order, one per version below
 * `AGENT_STATE_VERSION`. Version 2 only lets the stored form leave out empty
 * lists, so a version-1 state is already a valid version-2 state and its step
 * changes nothing but the version; the bump keeps a version-1 build from
 * misreading a compact state as one with missing fields. Version 3 slots in
 * as one more entry, with the schema change and the bump of
 * `AGENT_STATE_VERSION`:
 * @example
 * { from: 2, description: 'reply.deadline becomes reply.expiresAt',
 *   migrate: ({ reply, ...rest }) => ({ ...rest, reply: renameDeadline(reply) }) }
 */
export const agentStateMigrations: readonly AgentStateMigration[] = [
  {
    from: 1,
    description: 'empty lists may be left out of the stored form',
    migrate: (state) => state,
  },
];

/** Where to migrate to and with which steps (tests pass their own list). */
export type MigrateOptions = {
  migrations?: readonly AgentStateMigration[];
  targetVersion?: number;
  sessionId?: string | undefined;
};

/**
 * Brings a stored state up to the current schema version by running the
 * migrations from its `schemaVersion` on, in order. Refuses with
 * `InvalidStateError` a value that is not an object, a missing or
 * non-integer `schemaVersion`, a version newer than this build (a newer
 * Parley wrote it: upgrade rather than guess), or a version with no
 * migration. The result still needs validating (`parseAgentState` does both).
 */
export function migrateAgentState(value: unknown, options: MigrateOptions = {}): StoredStateObject {
  const {
    migrations = agentStateMigrations,
    targetVersion = AGENT_STATE_VERSION,
    sessionId,
  } = options;
  const refuse = (path: string, problem: string, cause?: unknown): InvalidStateError =>
    new InvalidStateError(stateProblemMessage(sessionId, path, problem), { sessionId, cause });

  if (!isObject(value)) {
    throw refuse('', `expected an agent state object, received ${kindOf(value)}`);
  }
  let state = value;
  const version = state['schemaVersion'];
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    const problem =
      version === undefined
        ? 'required field is missing (expected an integer version)'
        : `expected an integer version, received ${kindOf(version)}`;
    throw refuse('schemaVersion', problem);
  }
  if (version > targetVersion) {
    throw refuse(
      'schemaVersion',
      `version ${version} is newer than this build reads (up to ${targetVersion}); upgrade Parley to load it`,
    );
  }
  if (version < targetVersion) state = structuredClone(state);
  for (let current = version; current < targetVersion; current++) {
    const step = migrations.find((migration) => migration.from === current);
    if (step === undefined) {
      throw refuse('schemaVersion', `version ${current} cannot be migrated: no migration from it`);
    }
    try {
      state = { ...step.migrate(state), schemaVersion: current + 1 };
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw refuse(
        '',
        `migration from version ${current} (${step.description}) failed: ${reason}`,
        cause,
      );
    }
  }
  return state;
}

/**
 * The message of an `InvalidStateError` about one field:
 * `Invalid agent state of session 's1' at context.2.role: expected ...`.
 */
export function stateProblemMessage(
  sessionId: string | undefined,
  path: string,
  problem: string,
): string {
  const whose = sessionId === undefined ? '' : ` of session '${sessionId}'`;
  const where = path === '' ? '' : ` at ${path}`;
  return `Invalid agent state${whose}${where}: ${problem}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return `string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'number') return `number ${value}`;
  return typeof value;
}

function isObject(value: unknown): value is StoredStateObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
