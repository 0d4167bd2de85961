import type { Msg, ToolCallBlock } from '../message/index.js';
import type { ChatRequest } from '../model/index.js';
import type { AgentEvent } from '../event/index.js';
import type { ReplyRun } from './reply-run.js';
import { contextOf } from './middleware.js';
import { agentTexts } from './texts.js';
import { closeCall } from './tool-result.js';
import { TurnAssembler } from './turn-assembler.js';

/**
 * The request the model sees: the context as it stands. The list is a copy,
 * and so is the reply message (the last, the only one the agent changes in
 * place, with its block list copied, its blocks shared); the messages before
 * it are never changed again, so they are shared rather than copied for
 * every model call of a long session.
 */
export function buildRequest(run: ReplyRun): ChatRequest {
  const messages: Msg[] = run.state.context.slice();
  const last = messages.length - 1;
  const reply = messages[last];
  if (reply !== undefined) {
    messages[last] =
      typeof reply.content === 'string'
        ? { ...reply }
        : { ...reply, content: reply.content.slice() };
  }
  return { systemPrompt: run.deps.systemPrompt, messages, tools: run.deps.toolkit.schemas() };
}

/**
 * One model call through the `onModelCall` middlewares: streams the model's
 * output into the reply message and as events, and returns the tool calls it
 * made. If the model fails, the text received so far is kept and the turn's
 * tool calls are dropped, then the error is rethrown. Calls the token limit
 * cut off (finish reason `length`) are returned already closed with an
 * error result.
 */
export async function* reason(run: ReplyRun): AsyncGenerator<AgentEvent, ToolCallBlock[]> {
  const request = buildRequest(run);
  yield run.event('MODEL_CALL_START', { modelName: run.deps.model.name });
  const turn = new TurnAssembler(run);
  const out: AgentEvent[] = [];
  let cut: string[];
  try {
    const context = contextOf(run.info, { request, signal: run.signal });
    for await (const chunk of run.deps.callModel(context)) {
      turn.handle(chunk, out);
      for (const event of out) yield event;
      out.length = 0;
    }
    cut = turn.finish(out);
  } catch (error) {
    turn.abandon(out);
    for (const event of out) yield event;
    throw error;
  }
  for (const event of out) yield event;
  yield run.event('MODEL_CALL_END', {
    inputTokens: turn.inputTokens,
    outputTokens: turn.outputTokens,
    finishedReason: turn.finishedReason,
  });
  // A call the token limit cut off is never offered or run: its result tells
  // the model why, and the loop goes on so the model can try again.
  for (const id of cut) {
    const call = run.call(id);
    yield* closeCall(run, call, agentTexts.cutOff(call.name), 'error');
  }
  return [...turn.calls.keys()].map((id) => run.call(id));
}
