import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import type { AgentStateMigration } from './index.js';
import {
  AGENT_STATE_VERSION,
  agentStateMigrations,
  agentStateSchema,
  migrateAgentState,
} from './index.js';
import { thrownBy } from '../../test/thrown.js';

// A test-only history: version 1 kept the conversation under `messages`,
// version 2 renamed it `context`, version 3 added `permission`.
const history: AgentStateMigration[] = [
  {
    from: 1,
    description: 'messages becomes context',
    migrate: ({ messages, ...rest }) => ({ ...rest, context: messages }),
  },
  {
    from: 2,
    description: 'add the permission context',
    migrate: (state) => ({ ...state, permission: { mode: 'default' } }),
  },
];

const stateError = (run: () => unknown): InvalidStateError => thrownBy(InvalidStateError, run);

describe('migrateAgentState', () => {
  it('runs every step from the stored version up to the target, in order', () => {
    const v1 = { schemaVersion: 1, sessionId: 's', messages: ['hi'] };
    expect(migrateAgentState(v1, { migrations: history, targetVersion: 3 })).toEqual({
      schemaVersion: 3,
      sessionId: 's',
      context: ['hi'],
      permission: { mode: 'default' },
    });
  });

  it('starts from the stored version (no step runs twice)', () => {
    const v2 = { schemaVersion: 2, sessionId: 's', context: [] };
    expect(migrateAgentState(v2, { migrations: history, targetVersion: 3 })).toEqual({
      schemaVersion: 3,
      sessionId: 's',
      context: [],
      permission: { mode: 'default' },
    });
  });

  it('stamps the new version even when a step forgets to', () => {
    const result = migrateAgentState(
      { schemaVersion: 2 },
      { migrations: history, targetVersion: 3 },
    );
    expect(result['schemaVersion']).toBe(3);
  });

  it('leaves a current state as it is and never changes the value it was given', () => {
    const v1 = { schemaVersion: 1, sessionId: 's', messages: [{ text: 'hi' }] };
    const copy = structuredClone(v1);
    migrateAgentState(v1, {
      migrations: [
        { from: 1, description: 'mutates', migrate: (s) => Object.assign(s, { messages: null }) },
      ],
      targetVersion: 2,
    });
    expect(v1).toEqual(copy);
    expect(migrateAgentState(v1, { migrations: history, targetVersion: 1 })).toEqual(v1);
  });

  it('refuses a version newer than the target', () => {
    const error = stateError(() =>
      migrateAgentState(
        { schemaVersion: 4 },
        { migrations: history, targetVersion: 3, sessionId: 's1' },
      ),
    );
    expect(error.sessionId).toBe('s1');
    expect(error.message).toBe(
      "Invalid agent state of session 's1' at schemaVersion: version 4 is newer than this build reads (up to 3); upgrade Parley to load it",
    );
  });

  it('refuses a version with no migration from it', () => {
    const error = stateError(() =>
      migrateAgentState({ schemaVersion: 0 }, { migrations: history, targetVersion: 3 }),
    );
    expect(error.message).toContain('at schemaVersion: version 0 cannot be migrated');
  });

  it('refuses a missing or non-integer version', () => {
    for (const schemaVersion of [undefined, '1', 1.5, null]) {
      const error = stateError(() =>
        migrateAgentState({ schemaVersion }, { migrations: history, targetVersion: 3 }),
      );
      expect(error.message).toContain('at schemaVersion:');
    }
  });

  it('reports a step that throws, with its cause', () => {
    const broken: AgentStateMigration[] = [
      {
        from: 1,
        description: 'needs messages',
        migrate: (state) => {
          if (!Array.isArray(state['messages'])) throw new Error('messages is not a list');
          return state;
        },
      },
    ];
    const error = stateError(() =>
      migrateAgentState({ schemaVersion: 1 }, { migrations: broken, targetVersion: 2 }),
    );
    expect(error.message).toContain(
      'migration from version 1 (needs messages) failed: messages is not a list',
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('brings an old state to one the current schema accepts', () => {
    // A made-up version 0, one step below the real version 1.
    const fromZero: AgentStateMigration[] = [
      {
        from: 0,
        description: 'split the rules by behaviour',
        migrate: ({ rules, ...rest }) => ({
          ...rest,
          permission: {
            mode: 'default',
            workingDirectories: [],
            allowRules: rules,
            denyRules: [],
            askRules: [],
          },
        }),
      },
    ];
    const v0 = { schemaVersion: 0, sessionId: 's', context: [], reply: null, rules: [] };
    const migrated = migrateAgentState(v0, {
      migrations: [...fromZero, ...agentStateMigrations],
      targetVersion: AGENT_STATE_VERSION,
    });
    expect(agentStateSchema.safeParse(migrated).success).toBe(true);
  });
});

describe('agentStateMigrations (this build)', () => {
  it('has exactly one step per version below the current one, in order', () => {
    expect(agentStateMigrations.map((migration) => migration.from)).toEqual(
      Array.from({ length: AGENT_STATE_VERSION - 1 }, (_, index) => index + 1),
    );
  });

  it('changes nothing but the version of a version-1 state', () => {
    const permission = {
      mode: 'default',
      workingDirectories: [],
      allowRules: [],
      denyRules: [],
      askRules: [],
    };
    const v1 = { schemaVersion: 1, sessionId: 's', context: [], permission, reply: null };
    expect(migrateAgentState(v1)).toStrictEqual({ ...v1, schemaVersion: 2 });
  });

  it('is why a version-1 build refuses a compact state as newer, not as incomplete', () => {
    const compact = {
      schemaVersion: 2,
      sessionId: 's',
      context: [],
      permission: { mode: 'default' },
      reply: null,
    };
    const error = stateError(() =>
      migrateAgentState(compact, { migrations: [], targetVersion: 1 }),
    );
    expect(error.message).toBe(
      'Invalid agent state at schemaVersion: version 2 is newer than this build reads (up to 1); upgrade Parley to load it',
    );
  });
});
