import {
  Agent,
  Toolkit,
  userConfirmResultEvent,
  type AgentEvent,
  type PermissionMode,
  type PermissionRule,
  type ToolResultBlock,
} from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { Bash } from '../src/index.js';

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Where one Bash call runs through an agent, and how it is decided. */
export type AgentRun = {
  project: string;
  home: string;
  mode?: PermissionMode;
  rules?: PermissionRule[];
  /** Answer yes when the call asks. */
  confirm?: boolean;
};

/**
 * One Bash call through the public Agent API with a scripted model (the
 * project its one working directory, `home` as HOME); a call that asks is
 * answered yes when `confirm`. Gives whether it asked and its result.
 */
export async function bashThroughAgent(
  command: string,
  options: AgentRun,
): Promise<{ asked: boolean; result: ToolResultBlock | undefined }> {
  const bash = new Bash({ cwd: options.project, env: { HOME: options.home }, timeoutMs: 10_000 });
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'tc1', name: 'Bash', input: { command } }] },
    { text: 'done' },
  ]);
  const agent = new Agent({
    name: 'assistant',
    model,
    toolkit: new Toolkit([bash]),
    permission: {
      mode: options.mode ?? 'default',
      workingDirectories: [options.project],
      ...(options.rules === undefined ? {} : { rules: options.rules }),
    },
  });
  const events = await collect(agent.replyStream('go'));
  const ask = events.find((event) => event.type === 'REQUIRE_USER_CONFIRM');
  if (ask !== undefined && options.confirm === true) {
    await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: ask.toolCalls.map((toolCall) => ({ confirmed: true, toolCall })),
        }),
      ),
    );
  }
  const result = agent.state.context
    .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
    .find((block): block is ToolResultBlock => block.type === 'tool_result');
  return { asked: ask !== undefined, result };
}

/** The sandbox policy a result's metadata names (`read-only`, `write`, `bypass`, `outside`). */
export const sandboxPolicyOf = (result: ToolResultBlock | undefined): unknown =>
  (result?.metadata?.sandbox as { policy?: unknown } | undefined)?.policy;
