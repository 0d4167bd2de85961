import type { Attributes, Context, Link, Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { AgentEvent } from '../event/index.js';
import type { PermissionDecision, PermissionMode } from '../permission/index.js';
import type { ReplyState } from '../state/index.js';
import { PARKED_EVENT, attr } from './attributes.js';
import { fromTraceParent, toTraceParent } from './traceparent.js';

/** What a reply's trace is told about the answer that resumed it. */
export type ResumeInfo = {
  /** How the reply goes on: `confirm`, `external`, `interrupt`, `expire` or `continue`. */
  kind: string;
  /** The answer in a word or a few (`confirm`, `deny`, `edit`, `external`, …, comma-joined). */
  answer: string;
  /** Who answered, when the caller said (`SessionReplyOptions.approver`). */
  approver?: string;
  /** The parked reply's span (`ReplyState.traceParent`), to link to. */
  traceParent?: string;
  /** Seconds between the park and this resume, when the park time is known. */
  waitSeconds?: number;
};

/** The tracer and content setting a reply's trace uses. */
export type TraceSettings = { tracer: Tracer; captureContent: boolean };

/** A span kept open with the text captured for it (content capture only). */
type Open = { span: Span; text: string };

/**
 * The spans of one run of a reply: the `invoke_agent` span and, under it,
 * a `chat` span per model call, an `execute_tool` span per tool result and
 * a permission span per decision. It is fed the reply's output events as
 * they are built; it never changes the reply. With no SDK installed every
 * span is a non-recording one and each call returns at once.
 */
export class ReplyTrace {
  readonly span: Span;
  /** Whether content (model output, tool input and output) goes on spans. */
  readonly capturing: boolean;
  private readonly settings: TraceSettings;
  private readonly recording: boolean;
  private readonly parent: Context;
  private chat: Open | undefined;
  private readonly tools = new Map<string, Open>();

  constructor(
    settings: TraceSettings,
    reply: { agentName: string; sessionId: string; replyId?: string },
    resume?: ResumeInfo,
  ) {
    this.settings = settings;
    const attributes: Attributes = {
      [attr.operation]: 'invoke_agent',
      [attr.agentName]: reply.agentName,
      [attr.conversationId]: reply.sessionId,
    };
    if (reply.replyId !== undefined) attributes[attr.replyId] = reply.replyId;
    const links: Link[] = [];
    if (resume !== undefined) {
      const resumeAttributes = resumeAttributesOf(resume);
      Object.assign(attributes, resumeAttributes);
      const parked = fromTraceParent(resume.traceParent);
      if (parked !== undefined) links.push({ context: parked, attributes: resumeAttributes });
    }
    this.span = settings.tracer.startSpan(
      `invoke_agent ${reply.agentName}`,
      { kind: SpanKind.INTERNAL, attributes, links },
      context.active(),
    );
    this.recording = this.span.isRecording();
    this.capturing = this.recording && settings.captureContent;
    this.parent = trace.setSpan(context.active(), this.span);
  }

  /** Opens, fills or closes the child span an output event of the reply belongs to. */
  observe(event: AgentEvent, inputOf: (toolCallId: string) => string | undefined): void {
    if (!this.recording) return;
    switch (event.type) {
      case 'REPLY_START':
        this.span.setAttribute(attr.replyId, event.replyId);
        return;
      case 'MODEL_CALL_START':
        this.chat = this.open(`chat ${event.modelName}`, SpanKind.CLIENT, {
          [attr.operation]: 'chat',
          [attr.requestModel]: event.modelName,
        });
        return;
      case 'TEXT_BLOCK_DELTA':
        if (this.capturing && this.chat !== undefined) this.chat.text += event.delta;
        return;
      case 'MODEL_CALL_END':
        this.endChat(event.inputTokens, event.outputTokens, event.finishedReason);
        return;
      case 'TOOL_RESULT_START':
        this.startTool(event.toolCallId, event.toolCallName, inputOf);
        return;
      case 'TOOL_RESULT_TEXT_DELTA': {
        const open = this.tools.get(event.toolCallId);
        if (this.capturing && open !== undefined) open.text += event.delta;
        return;
      }
      case 'TOOL_RESULT_END':
        this.endTool(event.toolCallId, event.state);
        return;
      case 'REPLY_END':
        this.span.setAttribute(attr.finishedReason, event.finishedReason);
        if (event.error !== undefined) {
          this.span.setAttribute(attr.errorType, event.error.type);
          this.span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
        }
        return;
      default:
        return;
    }
  }

  /**
   * Starts the span of one permission decision; the returned function ends it
   * with the decision (or with the error the check threw).
   */
  permission(
    toolName: string,
    toolCallId: string,
    mode: PermissionMode,
    confirmedByUser: boolean,
  ): (outcome: PermissionDecision | Error) => void {
    if (!this.recording) return ignore;
    const span = this.settings.tracer.startSpan(
      `check_permission ${toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [attr.toolName]: toolName,
          [attr.toolCallId]: toolCallId,
          [attr.permissionMode]: mode,
          [attr.confirmedByUser]: confirmedByUser,
        },
      },
      this.parent,
    );
    return (outcome) => {
      if (outcome instanceof Error) {
        span.setAttribute(attr.errorType, outcome.name);
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
      } else {
        span.setAttribute(attr.permissionBehavior, outcome.behavior);
        if (outcome.decisionReason !== undefined) {
          span.setAttribute(attr.permissionReason, outcome.decisionReason);
        }
        const rule = outcome.matchedRule;
        if (rule !== undefined) {
          const content = rule.ruleContent === null ? '' : `(${rule.ruleContent})`;
          span.setAttribute(attr.permissionRule, `${rule.behavior} ${rule.toolName}${content}`);
        }
      }
      span.end();
    };
  }

  /**
   * The reply parks: its span context goes into the parked state (so the
   * resume, wherever it runs, can link to it) and the span gets the
   * `parley.reply.parked` event. Called before the park is persisted.
   */
  parking(reply: ReplyState): void {
    if (!this.recording) return;
    reply.traceParent = toTraceParent(this.span.spanContext());
    this.span.setAttribute(attr.replyStatus, 'parked');
    this.span.addEvent(PARKED_EVENT, { [attr.replyId]: reply.replyId });
  }

  /** Ends every span still open: the run is over (ended, parked, failed or left). */
  end(error?: unknown): void {
    if (!this.recording) return;
    if (this.chat !== undefined) {
      this.chat.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: 'The model call did not end.',
      });
      this.chat.span.end();
      this.chat = undefined;
    }
    // Calls still open wait outside the run (external ones parked with it).
    for (const open of this.tools.values()) open.span.end();
    this.tools.clear();
    if (error !== undefined) {
      this.span.setAttribute(attr.errorType, error instanceof Error ? error.name : typeof error);
      this.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : 'The run failed.',
      });
    }
    this.span.end();
  }

  private open(name: string, kind: SpanKind, attributes: Attributes): Open {
    return {
      span: this.settings.tracer.startSpan(name, { kind, attributes }, this.parent),
      text: '',
    };
  }

  private endChat(inputTokens: number, outputTokens: number, finished: string | null): void {
    const open = this.chat;
    if (open === undefined) return;
    this.chat = undefined;
    open.span.setAttributes({ [attr.inputTokens]: inputTokens, [attr.outputTokens]: outputTokens });
    if (finished !== null) open.span.setAttribute(attr.finishReasons, [finished]);
    if (this.capturing) {
      const message = { role: 'assistant', parts: [{ type: 'text', content: open.text }] };
      open.span.setAttribute(attr.outputMessages, JSON.stringify([message]));
    }
    open.span.end();
  }

  private startTool(
    id: string,
    name: string,
    inputOf: (toolCallId: string) => string | undefined,
  ): void {
    const attributes: Attributes = {
      [attr.operation]: 'execute_tool',
      [attr.toolName]: name,
      [attr.toolCallId]: id,
    };
    const input = this.capturing ? inputOf(id) : undefined;
    if (input !== undefined) attributes[attr.toolArguments] = input;
    this.tools.set(id, this.open(`execute_tool ${name}`, SpanKind.INTERNAL, attributes));
  }

  private endTool(id: string, state: string): void {
    const open = this.tools.get(id);
    if (open === undefined) return;
    this.tools.delete(id);
    open.span.setAttribute(attr.toolState, state);
    if (state === 'error') open.span.setStatus({ code: SpanStatusCode.ERROR });
    if (this.capturing) open.span.setAttribute(attr.toolResult, open.text);
    open.span.end();
  }
}

function ignore(): void {}

function resumeAttributesOf(resume: ResumeInfo): Attributes {
  const attributes: Attributes = { [attr.resumeKind]: resume.kind, [attr.answer]: resume.answer };
  if (resume.approver !== undefined) attributes[attr.approver] = resume.approver;
  if (resume.waitSeconds !== undefined) attributes[attr.waitSeconds] = resume.waitSeconds;
  return attributes;
}
