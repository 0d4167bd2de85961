// Guide example: the built-in AskUser tool asks structured questions; the
// answer goes back as text for the model and AskUserMetadata for programs.
import {
  Agent,
  AskUser,
  Toolkit,
  askUserResult,
  externalExecutionResultEvent,
  textOf,
} from '@parley/core';
import type { AskUserInput, Msg } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';

const question: AskUserInput = {
  questions: [
    {
      question: 'Which auth method should we integrate?',
      header: 'Auth method',
      options: [
        { label: 'OAuth 2.0 (Recommended)', description: 'Delegated login through a provider.' },
        { label: 'API keys', description: 'Simple, but keys must be rotated by hand.' },
      ],
    },
  ],
};

export async function askUserExample(): Promise<{ toModel: string; final: string }> {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'AskUser', input: question }] },
    { text: 'Going with OAuth 2.0.' },
  ]);
  const agent = new Agent({ name: 'assistant', model, toolkit: new Toolkit([AskUser]) });

  let final: Msg | undefined;
  for await (const event of agent.replyStream('Add login to the app')) {
    if (event.type !== 'REQUIRE_EXTERNAL_EXECUTION') continue;
    const call = event.toolCalls[0]!;
    // A renderer shows the questions and returns what the person chose.
    const result = askUserResult(call, [
      {
        question: 'Which auth method should we integrate?',
        selected: ['OAuth 2.0 (Recommended)'],
        other: null,
      },
    ]);
    final = await agent.reply(
      externalExecutionResultEvent({ replyId: event.replyId, executionResults: [result] }),
    );
  }
  const lastRequest = model.requests.at(-1)!;
  const reply = lastRequest.messages.at(-1)!;
  const toModel = Array.isArray(reply.content)
    ? reply.content
        .flatMap((block) =>
          block.type === 'tool_result' && Array.isArray(block.output)
            ? block.output.map((part) => (part.type === 'text' ? part.text : ''))
            : [],
        )
        .join('')
    : '';
  return { toModel, final: final === undefined ? '' : textOf(final) };
}
