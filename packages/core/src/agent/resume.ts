import type { ToolCallBlock, ToolResultBlock } from '../message/index.js';
import type {
  AgentEvent,
  ExternalExecutionResultEvent,
  UserConfirmResultEvent,
} from '../event/index.js';
import type { AgentState } from '../state/index.js';
import type { Toolkit } from '../tool/index.js';
import { parseToolInput } from '../tool/index.js';
import {
  InvalidEventError,
  InvalidToolResultError,
  NotWaitingError,
  UnknownToolCallError,
} from '../errors/index.js';
import type { PermissionEngine } from '../permission/index.js';
import type { ReplyRun } from './reply-run.js';
import { agentTexts } from './texts.js';
import { closeCall } from './tool-result.js';

/** The open tool calls of the parked reply in `state`, in the reply message's order. */
export function openCallsOf(state: AgentState): ToolCallBlock[] {
  const last = state.context.at(-1);
  if (state.reply === null || last === undefined || typeof last.content === 'string') return [];
  return last.content.filter(
    (block): block is ToolCallBlock => block.type === 'tool_call' && block.state !== 'finished',
  );
}

function checkIds(
  ids: string[],
  waiting: Set<string>,
  field: string,
  unknownMessage: (ids: string[]) => string,
): void {
  const unknown = ids.filter((id) => !waiting.has(id));
  if (unknown.length > 0) throw new UnknownToolCallError(unknownMessage(unknown), unknown);
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) {
      throw new InvalidEventError(`${field}.${index}`, `tool call '${id}' is answered twice`);
    }
    seen.add(id);
  });
}

/** Refuses a confirmation that does not fit what the parked reply asks (nothing is changed). */
export function checkConfirm(state: AgentState, event: UserConfirmResultEvent): void {
  const open = openCallsOf(state);
  const asking = new Set(open.filter((c) => c.state === 'asking').map((c) => c.id));
  if (asking.size === 0)
    throw new NotWaitingError(agentTexts.notWaitingConfirm(JSON.stringify(event)));
  const ids = event.confirmResults.map((result) => result.toolCall.id);
  checkIds(ids, asking, 'confirmResults', agentTexts.unknownConfirmIds);
  const names = new Map(open.map((call) => [call.id, call.name]));
  event.confirmResults.forEach((result, index) => {
    const name = names.get(result.toolCall.id);
    if (name !== undefined && result.toolCall.name !== name) {
      throw new InvalidEventError(
        `confirmResults.${index}.toolCall.name`,
        agentTexts.renamedConfirm(result.toolCall.id, name, result.toolCall.name),
      );
    }
  });
}

/**
 * Refuses external results that do not fit the submitted calls, including
 * metadata the tool's `outputMetadata` (or its own check, like AskUser's)
 * rejects. The whole event is checked before any of it is applied.
 */
export function checkExternal(
  state: AgentState,
  toolkit: Toolkit,
  event: ExternalExecutionResultEvent,
): void {
  const submitted = openCallsOf(state).filter((call) => call.state === 'submitted');
  if (submitted.length === 0) {
    throw new NotWaitingError(agentTexts.notWaitingExternal(JSON.stringify(event)));
  }
  const byId = new Map(submitted.map((call) => [call.id, call]));
  checkIds(
    event.executionResults.map((result) => result.id),
    new Set(byId.keys()),
    'executionResults',
    agentTexts.unknownExternalIds,
  );
  for (const result of event.executionResults) {
    const call = byId.get(result.id);
    if (call === undefined) continue;
    if (result.name !== call.name) {
      throw new InvalidToolResultError(
        result.id,
        `The result for tool call '${result.id}' names tool '${result.name}', but the call is to '${call.name}'.`,
      );
    }
    if (result.state === 'running') {
      throw new InvalidToolResultError(
        result.id,
        `The result for tool call '${result.id}' has state 'running'; an external result must be final.`,
      );
    }
    if (result.state !== 'success') continue;
    const tool = toolkit.get(call.name);
    if (tool === undefined) continue;
    const parsed = parseToolInput(tool, call.input);
    if (!parsed.ok) continue;
    const problem = tool.checkResultMetadata(parsed.input, result.metadata);
    if (problem !== undefined) {
      throw new InvalidToolResultError(
        result.id,
        `Invalid result metadata for tool call '${result.id}' of tool '${call.name}': ${problem}`,
      );
    }
  }
}

/**
 * Applies a checked confirmation in the order of the calls in the reply:
 * confirmed calls become `allowed` with the (possibly edited) input given
 * back (never another tool: `checkConfirm` refused a changed name) and
 * their rules join the permission context; denied calls are closed with the
 * denial reminder. Returns the events to emit once persisted.
 */
export function applyConfirm(
  run: ReplyRun,
  engine: PermissionEngine,
  event: UserConfirmResultEvent,
): AgentEvent[] {
  const byId = new Map(event.confirmResults.map((result) => [result.toolCall.id, result]));
  const events: AgentEvent[] = [];
  for (const call of run.openCalls()) {
    const result = byId.get(call.id);
    if (result === undefined) continue;
    if (result.confirmed) {
      run.updateCall(call.id, { input: result.toolCall.input, state: 'allowed' });
      for (const rule of result.rules ?? []) engine.addRule(rule);
    } else {
      events.push(...closeCall(run, call, agentTexts.denied(call.name, result.reason), 'denied'));
    }
  }
  return events;
}

function* streamResult(run: ReplyRun, result: ToolResultBlock): Generator<AgentEvent> {
  const toolCallId = result.id;
  const parts =
    typeof result.output === 'string'
      ? [{ type: 'text' as const, text: result.output }]
      : result.output;
  for (const part of parts) {
    if (part.type === 'text') {
      yield run.event('TOOL_RESULT_TEXT_DELTA', { toolCallId, delta: part.text });
    } else if (part.source.type === 'base64') {
      yield run.event('TOOL_RESULT_DATA_DELTA', {
        toolCallId,
        mediaType: part.source.mediaType,
        data: part.source.data,
      });
    } else {
      yield run.event('TOOL_RESULT_DATA_DELTA', {
        toolCallId,
        mediaType: part.source.mediaType,
        url: part.source.url,
      });
    }
  }
  yield run.event('TOOL_RESULT_END', {
    toolCallId,
    state: result.state,
    metadata: result.metadata ?? {},
  });
}

/** Applies checked external results (in the reply's call order); returns the events to emit. */
export function applyExternal(run: ReplyRun, event: ExternalExecutionResultEvent): AgentEvent[] {
  const byId = new Map(event.executionResults.map((result) => [result.id, result]));
  const events: AgentEvent[] = [];
  for (const call of run.openCalls()) {
    const given = byId.get(call.id);
    if (given === undefined) continue;
    const result = structuredClone(given);
    events.push(...streamResult(run, result));
    run.finishCall(result);
  }
  return events;
}
