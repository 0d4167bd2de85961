import type { ToolCallBlock } from '../message/index.js';
import type { PermissionDecision, PermissionEngine } from '../permission/index.js';
import type { Tool } from '../tool/index.js';
import { parseToolInput } from '../tool/index.js';
import type { AgentEvent } from '../event/index.js';
import { compose, contextOf } from './middleware.js';
import type { PermissionCheckContext } from './middleware.js';
import type { ReplyRun } from './reply-run.js';
import { agentTexts } from './texts.js';
import { closeCall } from './tool-result.js';

/** A call that passed lookup and validation, with its decision. */
export type Evaluated = { tool: Tool<unknown>; input: unknown; decision: PermissionDecision };

/** An evaluation: a decision, or the events of the error result that closed the call. */
export type Evaluation = { ok: true; evaluated: Evaluated } | { ok: false; events: AgentEvent[] };

/** A call's tool and validated input, or the text of the error result it must get. */
export type Resolved =
  { ok: true; tool: Tool<unknown>; input: unknown } | { ok: false; error: string };

/** Looks the tool up and validates the call's input (SPEC section 3, step 1). */
export function resolveCall(run: ReplyRun, call: ToolCallBlock): Resolved {
  // Keyed by name, then by input: a joined key would be a new string to hash on every lookup.
  let byInput = run.resolved.get(call.name);
  const cached = byInput?.get(call.input);
  if (cached !== undefined) return cached;
  const found = run.deps.toolkit.get(call.name);
  let resolved: Resolved;
  if (found === undefined) {
    resolved = { ok: false, error: agentTexts.toolNotFound(call.name) };
  } else {
    const parsed = parseToolInput(found, call.input);
    resolved = parsed.ok
      ? { ok: true, tool: found, input: parsed.input }
      : { ok: false, error: agentTexts.invalidInput(call.name, parsed.reason) };
  }
  if (byInput === undefined) {
    byInput = new Map();
    run.resolved.set(call.name, byInput);
  }
  byInput.set(call.input, resolved);
  return resolved;
}

/**
 * The decision for a call a person confirmed: allowed, unless a deny rule
 * covers its input (edited or not); no answer overrides a deny rule.
 */
function afterConfirmation(
  engine: PermissionEngine,
  tool: Tool<unknown>,
  input: unknown,
): PermissionDecision {
  const rule = engine.denyRuleFor(tool, input);
  if (rule === undefined) {
    return {
      behavior: 'allow',
      message: agentTexts.alreadyAllowed,
      decisionReason: 'user confirmation',
      allowedBy: 'user',
    };
  }
  const named = rule.ruleContent === null ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
  return {
    behavior: 'deny',
    message: agentTexts.deniedAfterEdit(tool.name, named),
    decisionReason: `Rule: ${rule.ruleContent ?? rule.toolName}`,
    matchedRule: rule,
  };
}

/**
 * Steps 1 and 2 of acting: resolve the call, then ask the permission engine
 * through the `onCheckPermission` middlewares. A call the user confirmed
 * skips the engine (all but its deny rules) but not the middlewares. An unknown tool, bad input or a
 * permission check that throws closes the call with an error result, whose
 * events are returned.
 */
export async function evaluateCall(
  run: ReplyRun,
  call: ToolCallBlock,
  confirmedByUser: boolean,
): Promise<Evaluation> {
  const resolved = resolveCall(run, call);
  if (!resolved.ok)
    return { ok: false, events: [...closeCall(run, call, resolved.error, 'error')] };
  const { tool, input } = resolved;
  const inner = (context: PermissionCheckContext): Promise<PermissionDecision> =>
    context.confirmedByUser
      ? Promise.resolve(afterConfirmation(run.deps.engine, tool, input))
      : run.deps.engine.check(tool, input);
  let decision: PermissionDecision;
  const traced = run.trace?.permission(
    call.name,
    call.id,
    run.deps.engine.context.mode,
    confirmedByUser,
  );
  try {
    const copy = run.deps.copyFor.permission;
    decision = await compose(
      run.deps.permissionHooks,
      inner,
    )(
      contextOf(run.info, {
        toolCall: copy ? structuredClone(call) : call,
        input: copy ? structuredClone(input) : input,
        tool,
        confirmedByUser,
      }),
    );
  } catch (error) {
    // A permission check that fails never allows: the call gets an error
    // result, like a tool that throws, and the loop goes on.
    const failure = error instanceof Error ? error : new Error(String(error));
    traced?.(failure);
    run.deps.metrics.decided(run.deps.agentName, call.name, failure, confirmedByUser);
    const text = error instanceof Error ? error.message : String(error);
    return { ok: false, events: [...closeCall(run, call, text, 'error')] };
  }
  traced?.(decision);
  run.deps.metrics.decided(run.deps.agentName, call.name, decision, confirmedByUser);
  return { ok: true, evaluated: { tool, input, decision } };
}
