import type { AgentState } from '../../state/index.js';
import { AGENT_STATE_VERSION } from '../../state/index.js';
import type { AuditDecision, AuditRecord } from '../audit-record.js';
import type { SessionStore } from '../session-store.js';

/**
 * What a conformance run needs from a backend: a fresh, empty store, ways to
 * reach behind its back, and a way to clean up. `makeStore` is called once
 * per case; `close` ends the store and removes whatever the factory created
 * (a temporary file, a schema).
 */
export type SessionStoreHarness = {
  /** The store under test. It must implement `listAudit`, `listDue` and `renewLease`. */
  store: SessionStore & Required<Pick<SessionStore, 'listAudit' | 'listDue' | 'renewLease'>>;
  /**
   * Writes `rawText` as the stored state of `sessionId` without going
   * through the store, keeping its version (version 1 if it did not exist).
   */
  corrupt: (sessionId: string, rawText: string) => Promise<void>;
  /**
   * What is stored for `sessionId`, read without the store: its version, and
   * as `text` the head row's text followed by each message row's, one a line.
   */
  readRaw: (sessionId: string) => Promise<{ text: string; version: number } | undefined>;
  /**
   * The version that wrote each message row of `sessionId`, by position,
   * read without the store.
   */
  messageVersions: (sessionId: string) => Promise<number[]>;
  /**
   * Changes message row `position` of `sessionId` behind the store's back,
   * leaving its digest and the session's version alone: `change` gives the
   * row's new text, or `undefined` to delete the row.
   */
  tamperMessage: (
    sessionId: string,
    position: number,
    change: (text: string) => string | undefined,
  ) => Promise<void>;
  /**
   * Another store over the same data, as another process would open it:
   * nothing cached. The harness closes it with the first.
   */
  reopen: () => Promise<SessionStore>;
  /**
   * Optional: make every later audit insert fail inside the storage engine
   * (a trigger, say), to show that the state change rolls back with it.
   * Backends with no storage engine (memory) leave it out; the case skips.
   */
  failAuditWrites?: () => Promise<void>;
  /** Closes the store and removes what the factory created. */
  close: () => Promise<void>;
};

let counter = 0;

/** A session id no other case (or concurrent run) uses. */
export function freshSessionId(label = 'session'): string {
  counter += 1;
  return `${label}-${counter}-${globalThis.crypto.randomUUID()}`;
}

/**
 * A realistic state for `sessionId`: text with non-ASCII characters, a tool
 * call with raw JSON input, its result, a rule, and a parked reply (whose
 * message ends the context, as the state invariants require). `step`
 * changes the content so successive saves are told apart.
 */
export function sampleState(sessionId: string, step = 0): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId,
    context: [
      {
        id: `m1-${step}`,
        name: 'user',
        role: 'user',
        content: `Write a note, step ${step}: «naïve café» 🚀 "quotes" \\ back\nslash`,
        createdAt: '2025-01-02T03:04:05.006Z',
      },
      {
        id: `r-${step}`,
        name: 'assistant',
        role: 'assistant',
        finishedReason: null,
        content: [
          { type: 'thinking', thinking: 'The user wants a note.' },
          {
            type: 'tool_call',
            id: 'tc1',
            name: 'write_note',
            input: '{"path":"notes/a.md","content":"line\\nnext \\u0000 nul"}',
            state: 'finished',
            suggestedRules: [
              { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'session' },
            ],
          },
          {
            type: 'tool_result',
            id: 'tc1',
            name: 'write_note',
            output: [{ type: 'text', text: 'Wrote 2 lines. NUL here: \u0000' }],
            state: 'success',
            metadata: { bytes: 17, nested: { list: [1, 2.5, null, true] } },
          },
        ],
      },
    ],
    permission: {
      mode: 'default',
      workingDirectories: ['/project'],
      allowRules: [
        { toolName: 'Read', ruleContent: '/project/**', behavior: 'allow', source: 'user' },
      ],
      denyRules: [],
      askRules: [],
    },
    reply: {
      replyId: `r-${step}`,
      status: 'parked',
      iterations: step,
      turnStart: 0,
      executing: [],
      parkedAt: '2025-01-02T03:04:06.000Z',
    },
  };
}

/**
 * A long conversation of `sessionId` with no reply in progress: `turns`
 * earlier turns, each a user message and an answer holding a tool call and
 * its result of about 1 KB. `step` changes the last answer's text.
 */
export function historyState(sessionId: string, turns: number, step = 0): AgentState {
  const state = sampleState(sessionId, step);
  state.reply = null;
  state.context = [];
  for (let turn = 0; turn < turns; turn += 1) {
    state.context.push(
      {
        id: `u${turn}`,
        name: 'user',
        role: 'user',
        content: `Read file ${turn}`,
        createdAt: '2025-01-02T03:04:05.006Z',
      },
      {
        id: `a${turn}`,
        name: 'assistant',
        role: 'assistant',
        finishedReason: 'completed',
        content: [
          {
            type: 'tool_call',
            id: `c${turn}`,
            name: 'read',
            input: '{"path":"a"}',
            state: 'finished',
            suggestedRules: [],
          },
          {
            type: 'tool_result',
            id: `c${turn}`,
            name: 'read',
            output: [{ type: 'text', text: `${turn} `.padEnd(1024, 'x') }],
            state: 'success',
          },
          { type: 'text', text: turn === turns - 1 ? `done ${step}` : 'done' },
        ],
      },
    );
  }
  return state;
}

/** A valid audit record of `sessionId`; `fields` overrides any of its fields. */
export function sampleAudit(
  sessionId: string,
  decision: AuditDecision,
  fields: Partial<AuditRecord> = {},
): AuditRecord {
  return {
    sessionId,
    replyId: 'r-1',
    toolCallId: 'tc1',
    toolName: 'write_note',
    decision,
    inputDigest: 'a'.repeat(64),
    approver: decision === 'confirmed' || decision === 'denied' ? 'ada@example.com' : null,
    at: '2025-01-02T03:04:05.006Z',
    ...fields,
  };
}
