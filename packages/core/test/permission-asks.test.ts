import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findPermissionAsk, PERMISSION_ASKS_KEY, tool } from '../src/index.js';
import type { PermissionDecision, Tool } from '../src/index.js';
import { asked, collect, confirm, modes, ofType, replyIdOf, setup } from './support.js';

// The reason a call asks travels beside it: in the REQUIRE_USER_CONFIRM
// event's metadata and in the parked reply message's metadata, keyed by the
// tool call id, for as long as the call asks.

const secretRead: PermissionDecision = {
  behavior: 'ask',
  message: 'Permission required for read_file',
  decisionReason: 'Safety: reads a secret: ~/.ssh/id_rsa',
  bypassImmune: true,
};

const readFile: Tool<{ path: string }> = {
  ...tool({
    name: 'read_file',
    description: 'Reads a file.',
    input: z.object({ path: z.string() }),
    readOnly: true,
    execute: async ({ path }) => `contents of ${path}`,
  }),
  checkReads: ({ path }) => (path.includes('.ssh') ? secretRead : undefined),
};

const call = { id: 'tc1', name: 'read_file', input: { path: '~/.ssh/id_rsa' } };
const expectedAsk = {
  message: 'Permission required for read_file',
  decisionReason: 'Safety: reads a secret: ~/.ssh/id_rsa',
  bypassImmune: true,
};

describe('why a call asks is kept for whoever answers it', () => {
  it.each(modes)(
    '%s: in the event and the parked state, until the call is answered',
    async (mode) => {
      const { agent, resume } = setup(
        [{ toolCalls: [call] }, { text: 'done' }],
        [readFile],
        { permission: { mode: 'bypass' } },
        mode,
      );
      const events = await collect(agent.replyStream('Read my key'));
      const [event] = ofType(events, 'REQUIRE_USER_CONFIRM');
      expect(event === undefined ? undefined : findPermissionAsk(event, 'tc1')).toEqual(
        expectedAsk,
      );
      const parked = resume(agent);
      const reply = parked.state.context.find((message) => message.id === replyIdOf(events));
      expect(reply === undefined ? undefined : findPermissionAsk(reply, 'tc1')).toEqual(
        expectedAsk,
      );

      await collect(parked.replyStream(confirm(replyIdOf(events), asked(events))));
      const after = parked.state.context.find((message) => message.id === replyIdOf(events));
      expect(after?.metadata?.[PERMISSION_ASKS_KEY]).toBeUndefined();
      expect(after?.metadata).toBeUndefined();
    },
  );

  it('is not kept for a call id of __proto__, and the state still loads', async () => {
    const { agent, revive } = setup([{ toolCalls: [{ ...call, id: '__proto__' }] }], [readFile]);
    const events = await collect(agent.replyStream('Read my key'));
    expect(asked(events).map((block) => block.id)).toEqual(['__proto__']);
    const reply = revive(agent).state.context.find((message) => message.id === replyIdOf(events));
    expect(reply === undefined ? undefined : findPermissionAsk(reply, '__proto__')).toBeUndefined();
  });

  it('is undefined for a call without a kept ask, or a malformed one', () => {
    expect(findPermissionAsk({}, 'tc1')).toBeUndefined();
    expect(
      findPermissionAsk({ metadata: { [PERMISSION_ASKS_KEY]: {} } }, 'constructor'),
    ).toBeUndefined();
    expect(findPermissionAsk({ metadata: { [PERMISSION_ASKS_KEY]: 'x' } }, 'tc1')).toBeUndefined();
    expect(
      findPermissionAsk({ metadata: { [PERMISSION_ASKS_KEY]: { tc1: { message: 1 } } } }, 'tc1'),
    ).toBeUndefined();
  });
});
