/**
 * Span and attribute names. The `gen_ai.*` ones follow the OpenTelemetry
 * GenAI semantic conventions (development status); the `parley.*` ones are
 * Parley's own, for what those conventions do not cover (permission
 * decisions, parking and resuming).
 */
export const attr = {
  operation: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  replyId: 'parley.reply.id',
  replyStatus: 'parley.reply.status',
  finishedReason: 'parley.reply.finished_reason',
  resumeKind: 'parley.resume.kind',
  approver: 'parley.resume.approver',
  answer: 'parley.resume.answer',
  waitSeconds: 'parley.resume.wait_seconds',
  toolState: 'parley.tool.result_state',
  permissionBehavior: 'parley.permission.behavior',
  permissionReason: 'parley.permission.reason',
  permissionRule: 'parley.permission.rule',
  permissionMode: 'parley.permission.mode',
  confirmedByUser: 'parley.permission.confirmed_by_user',
} as const;

/** The span event a parked reply's span ends with. */
export const PARKED_EVENT = 'parley.reply.parked';

/** The name of the tracer (and meter) Parley's core asks the global API for. */
export const INSTRUMENTATION_NAME = '@parley/core';
