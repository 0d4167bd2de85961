import type { PermissionRule, ToolCallBlock, ToolResultBlock } from '../../message/index.js';
import type { PermissionDecision } from '../../permission/index.js';
import type { InputEvent } from '../../event/index.js';
import type { AgentState } from '../../state/index.js';
import { agentTexts } from '../../agent/index.js';
import type { AuditDecision, AuditRecord } from '../audit-record.js';
import { sha256Hex } from './sha256.js';

/** Who the records of one runner call name, and when they happen. */
export type AuditContext = {
  sessionId: string;
  /** The person answering in this call (`null` when none, e.g. a sweep). */
  approver: string | null;
  clock: () => Date;
};

type CallMark = { state: ToolCallBlock['state']; executing: boolean };

/** A tool call of a scanned message: its reply (message id), the message's results, where. */
type Scanned = {
  call: ToolCallBlock;
  replyId: string;
  results: Map<string, ToolResultBlock>;
  index: number;
};

/**
 * Gathers the audit records of one runner call and hands them to each save,
 * so every record is written in the transaction of the state it describes.
 *
 * Two sources. Explicit records come from what only the runner sees: the
 * answer it was given (confirmed, denied with its reason, input edited,
 * rules added, external results) and each permission decision (allowed or
 * denied by a rule or the mode), through an outermost middleware. The rest
 * is read off the state at each save, against what the previous save held:
 * a call that started asking (asked), a claimed call that got its result
 * (executed), a call closed by expiry (expired) or by an interruption, a
 * cancellation or a stopped process (interrupted).
 */
export class AuditCollector {
  private readonly context: AuditContext;
  private pending: AuditRecord[] = [];
  /** Calls whose closing an explicit record already explains. */
  private readonly explained = new Set<string>();
  private marks = new Map<string, CallMark>();
  private from = 0;
  private readonly digests = new Map<string, string>();

  constructor(context: AuditContext) {
    this.context = context;
  }

  /** Takes `state` as the baseline of the next save (what the store holds). */
  observe(state: AgentState): void {
    this.from = Math.max(0, state.context.length - 1);
    this.remember(state, this.scan(state));
  }

  /** The records of an answer about to be applied to the parked reply of `state`. */
  recordInput(state: AgentState, event: InputEvent): void {
    const calls = new Map(
      this.scan(state).map(({ call, replyId }) => [call.id, { call, replyId }]),
    );
    if (event.type === 'USER_CONFIRM_RESULT') {
      for (const result of event.confirmResults) {
        const found = calls.get(result.toolCall.id);
        if (found === undefined) continue;
        const { call, replyId } = found;
        if (!result.confirmed) {
          const detail = result.reason === undefined ? undefined : { reason: result.reason };
          this.add('denied', replyId, call, this.context.approver, detail);
          this.explained.add(call.id);
          continue;
        }
        // The agent refuses a changed name, so only the input can differ.
        const after = { ...call, input: result.toolCall.input };
        if (after.input !== call.input) {
          this.add('input_edited', replyId, after, this.context.approver, {
            before: { name: call.name, input: call.input },
            after: { name: after.name, input: after.input },
          });
        }
        this.add('confirmed', replyId, after, this.context.approver);
        for (const rule of result.rules ?? []) {
          this.add('rule_added', replyId, after, this.context.approver, { rule: ruleDetail(rule) });
        }
      }
    } else if (event.type === 'EXTERNAL_EXECUTION_RESULT') {
      for (const result of event.executionResults) {
        const found = calls.get(result.id);
        if (found === undefined) continue;
        this.add('executed', found.replyId, found.call, this.context.approver, {
          external: true,
          state: result.state,
        });
        this.explained.add(result.id);
      }
    }
  }

  /** The record of a permission decision made without asking (none for asks). */
  recordDecision(
    replyId: string,
    call: ToolCallBlock,
    decision: PermissionDecision,
    confirmedByUser: boolean,
  ): void {
    // A confirmed call is recorded by the answer, unless a deny rule still stopped it.
    if (confirmedByUser && decision.behavior !== 'deny') return;
    const rule = decision.matchedRule;
    const reason = { reason: decision.decisionReason ?? decision.message };
    if (decision.behavior === 'allow') {
      if (rule === undefined) this.add('allowed_by_mode', replyId, call, null, reason);
      else this.add('allowed_by_rule', replyId, call, null, { rule: ruleDetail(rule) });
    } else if (decision.behavior === 'deny') {
      if (rule === undefined) this.add('denied_by_mode', replyId, call, null, reason);
      else this.add('denied_by_rule', replyId, call, null, { rule: ruleDetail(rule) });
      this.explained.add(call.id);
    }
  }

  /**
   * The records to write with a save of `state`: the explicit ones gathered
   * since the last save, then what changed since it. Takes `state` as the
   * new baseline; call it synchronously, before the save's first `await`.
   */
  take(state: AgentState): AuditRecord[] {
    const scanned = this.scan(state);
    for (const { call, replyId, results } of scanned) {
      const before = this.marks.get(call.id);
      if (call.state === 'asking' && before?.state !== 'asking') {
        const detail =
          call.suggestedRules.length > 0
            ? { suggestedRules: call.suggestedRules.map(ruleDetail) }
            : undefined;
        this.add('asked', replyId, call, null, detail);
      }
      if (
        call.state === 'finished' &&
        before?.state !== 'finished' &&
        !this.explained.has(call.id)
      ) {
        const result = results.get(call.id);
        if (result !== undefined) this.closing(replyId, call, result, before?.executing === true);
      }
    }
    const records = this.pending;
    this.pending = [];
    this.explained.clear();
    this.remember(state, scanned);
    return records;
  }

  private remember(state: AgentState, scanned: Scanned[]): void {
    this.from = Math.max(0, state.context.length - 1);
    this.marks = new Map();
    const executing = new Set(state.reply?.executing ?? []);
    for (const { call, index } of scanned) {
      if (index < this.from) continue;
      this.marks.set(call.id, { state: call.state, executing: executing.has(call.id) });
    }
  }

  /** The record of a call that got a result the runtime or the tool wrote. */
  private closing(
    replyId: string,
    call: ToolCallBlock,
    result: ToolResultBlock,
    claimed: boolean,
  ): void {
    const expired = result.metadata?.['expired'];
    if (expired !== undefined) {
      this.add('expired', replyId, call, null, { state: result.state, deadline: expired });
    } else if (result.state === 'interrupted') {
      const stopped = result.output === agentTexts.outcomeUnknown;
      this.add('interrupted', replyId, call, stopped ? null : this.context.approver, {
        reason: stopped ? 'process_stopped' : claimed ? 'cancelled_while_running' : 'interrupted',
      });
    } else if (claimed) {
      this.add('executed', replyId, call, null, { state: result.state });
    }
  }

  private add(
    decision: AuditDecision,
    replyId: string,
    call: ToolCallBlock,
    approver: string | null,
    detail?: Record<string, unknown>,
  ): void {
    const record: AuditRecord = {
      sessionId: this.context.sessionId,
      replyId,
      toolCallId: call.id,
      toolName: call.name,
      decision,
      inputDigest: this.digest(call.input),
      approver,
      at: this.context.clock().toISOString(),
    };
    if (detail !== undefined) record.detail = detail;
    this.pending.push(record);
  }

  private digest(input: string): string {
    let digest = this.digests.get(input);
    if (digest === undefined) {
      digest = sha256Hex(input);
      this.digests.set(input, digest);
    }
    return digest;
  }

  /** The tool calls of the messages from the baseline's last one on, with their results. */
  private scan(state: AgentState): Scanned[] {
    const found: Scanned[] = [];
    for (let index = this.from; index < state.context.length; index++) {
      const message = state.context[index];
      if (message === undefined || typeof message.content === 'string') continue;
      const results = new Map<string, ToolResultBlock>();
      const calls: ToolCallBlock[] = [];
      for (const block of message.content) {
        if (block.type === 'tool_call') calls.push(block);
        else if (block.type === 'tool_result') results.set(block.id, block);
      }
      for (const call of calls) found.push({ call, replyId: message.id, results, index });
    }
    return found;
  }
}

function ruleDetail(rule: PermissionRule): Record<string, unknown> {
  return {
    toolName: rule.toolName,
    ruleContent: rule.ruleContent,
    behavior: rule.behavior,
    source: rule.source,
  };
}
