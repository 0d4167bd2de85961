import type { Interrupt } from '@ag-ui/core';
import { AskUser, findPermissionAsk, parseToolInput } from '@parley/core';
import type { AgentState, AskUserInput, Toolkit, ToolCallBlock } from '@parley/core';
import { waitingCallsOf } from '../waiting/session-summary.js';
import type { WaitingCall } from '../waiting/session-summary.js';

/** What an interrupt asks about a waiting call: a confirmation, AskUser's answers, an external result. */
export type InterruptKind = 'confirm' | 'ask' | 'external';

/** The interrupt id of a waiting call: `<kind>:<toolCallId>`, readable without any server memory. */
export function interruptId(kind: InterruptKind, toolCallId: string): string {
  return `${kind}:${toolCallId}`;
}

/** Reads an interrupt id back; undefined for one this server never makes. */
export function decodeInterruptId(
  id: string,
): { kind: InterruptKind; toolCallId: string } | undefined {
  const match = /^(confirm|ask|external):(.+)$/s.exec(id);
  const kind = match?.[1];
  const toolCallId = match?.[2];
  if (toolCallId === undefined) return undefined;
  if (kind === 'confirm' || kind === 'ask' || kind === 'external') return { kind, toolCallId };
  return undefined;
}

/** The kind of interrupt a waiting call gets. */
export function kindOf(call: WaitingCall): InterruptKind {
  if (call.awaiting === 'confirm') return 'confirm';
  return call.name === AskUser.name ? 'ask' : 'external';
}

/** A call's input as JSON when it parses, else its raw text. */
function inputOf(call: ToolCallBlock): unknown {
  try {
    return JSON.parse(call.input) as unknown;
  } catch {
    return call.input;
  }
}

const ruleSchema = (call: ToolCallBlock): Record<string, unknown> => ({
  type: 'array',
  description: 'Rules to keep (from metadata.parley.suggestedRules), so such calls stop asking.',
  items: { enum: call.suggestedRules.map((rule) => ({ ...rule })) },
});

function confirmSchema(call: ToolCallBlock, toolkit: Toolkit): Record<string, unknown> {
  const tool = toolkit.get(call.name);
  return {
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      editedArgs: tool?.jsonSchema() ?? { type: 'object' },
      reason: { type: 'string', description: 'Why the call is denied; the model reads it.' },
      rules: ruleSchema(call),
    },
    required: ['approved'],
    additionalProperties: false,
  };
}

function askSchema(input: AskUserInput): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      answers: {
        type: 'array',
        minItems: 1,
        maxItems: input.questions.length,
        items: {
          anyOf: input.questions.map((question) => ({
            type: 'object',
            properties: {
              question: { const: question.question },
              selected: {
                type: 'array',
                items: { enum: question.options.map((option) => option.label) },
                uniqueItems: true,
                ...(question.multiSelect === true ? {} : { maxItems: 1 }),
              },
              other: { type: ['string', 'null'] },
            },
            required: ['question', 'selected', 'other'],
            additionalProperties: false,
          })),
        },
      },
    },
    required: ['answers'],
    additionalProperties: false,
  };
}

const externalSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    output: { type: 'string', description: 'What the tool returned, for the model.' },
    state: { enum: ['success', 'error', 'interrupted'] },
    metadata: { type: 'object', description: "Checked against the tool's outputMetadata." },
  },
  required: ['output'],
  additionalProperties: false,
};

/** What stands open after a run: the interrupts, and the client's own tool calls it owes results for. */
export type OpenCalls = { interrupts: Interrupt[]; pendingToolCallIds: string[] };

/**
 * The interrupts of a parked reply, computed from the stored state alone,
 * one per waiting call in the reply's order (HTTP.md, "AG-UI"); calls of
 * the client's own tools (`clientTools`) are listed as pending instead.
 */
export function openCallsOf(
  state: AgentState | undefined,
  toolkit: Toolkit,
  clientTools: ReadonlySet<string>,
): OpenCalls {
  const reply = state?.reply;
  if (state === undefined || reply?.status !== 'parked') {
    return { interrupts: [], pendingToolCallIds: [] };
  }
  const message = state.context.find((candidate) => candidate.id === reply.replyId);
  const open: OpenCalls = { interrupts: [], pendingToolCallIds: [] };
  for (const call of waitingCallsOf(state)) {
    if (call.awaiting === 'external' && clientTools.has(call.name)) {
      open.pendingToolCallIds.push(call.id);
      continue;
    }
    const kind = kindOf(call);
    const ask =
      kind === 'confirm' && message !== undefined ? findPermissionAsk(message, call.id) : undefined;
    const parley = {
      kind,
      replyId: reply.replyId,
      toolName: call.name,
      input: inputOf(call),
      suggestedRules: call.suggestedRules,
      ...(ask?.decisionReason === undefined ? {} : { decisionReason: ask.decisionReason }),
      ...(ask?.bypassImmune === true ? { safety: true } : {}),
    };
    const base = {
      id: interruptId(kind, call.id),
      toolCallId: call.id,
      ...(reply.deadline === undefined ? {} : { expiresAt: reply.deadline }),
    };
    if (kind === 'confirm') {
      open.interrupts.push({
        ...base,
        reason: 'tool_call',
        message: ask?.message || `Allow ${call.name}?`,
        responseSchema: confirmSchema(call, toolkit),
        metadata: { parley },
      });
    } else if (kind === 'ask') {
      const parsed = parseToolInput(AskUser, call.input);
      const questions = parsed.ok ? parsed.input.questions : [];
      open.interrupts.push({
        ...base,
        reason: 'input_required',
        message: questions.map((question) => question.question).join('\n'),
        ...(parsed.ok ? { responseSchema: askSchema(parsed.input) } : {}),
        metadata: { parley: { ...parley, questions } },
      });
    } else {
      open.interrupts.push({
        ...base,
        reason: 'parley:external_execution',
        message: `Run ${call.name} and send its result.`,
        responseSchema: externalSchema,
        metadata: { parley },
      });
    }
  }
  return open;
}
