import type { ToolCallBlock } from '../message/index.js';
import type { PermissionDecision } from '../permission/index.js';
import type { Tool } from '../tool/index.js';
import { parseToolInput } from '../tool/index.js';
import type { AgentEvent } from '../event/index.js';
import { compose } from './middleware.js';
import type { PermissionCheckContext } from './middleware.js';
import type { ReplyRun } from './reply-run.js';
import { agentTexts } from './texts.js';
import { closeCall } from './tool-result.js';

/** A call that passed lookup and validation, with its decision. */
export type Evaluated = { tool: Tool<unknown>; input: unknown; decision: PermissionDecision };

/** A call's tool and validated input, or the text of the error result it must get. */
export type Resolved =
  { ok: true; tool: Tool<unknown>; input: unknown } | { ok: false; error: string };

/** Looks the tool up and validates the call's input (SPEC section 3, step 1). */
export function resolveCall(run: ReplyRun, call: ToolCallBlock): Resolved {
  const found = run.deps.toolkit.get(call.name);
  if (found === undefined) return { ok: false, error: agentTexts.toolNotFound(call.name) };
  const parsed = parseToolInput(found, call.input);
  if (!parsed.ok) return { ok: false, error: agentTexts.invalidInput(call.name, parsed.reason) };
  return { ok: true, tool: found, input: parsed.input };
}

/**
 * Steps 1 and 2 of acting: resolve the call, then ask the permission engine
 * through the `onCheckPermission` middlewares. A call the user confirmed
 * skips the engine but not the middlewares. An unknown tool or bad input
 * closes the call with an error result and yields undefined.
 */
export async function* evaluateCall(
  run: ReplyRun,
  call: ToolCallBlock,
  confirmedByUser: boolean,
): AsyncGenerator<AgentEvent, Evaluated | undefined> {
  const resolved = resolveCall(run, call);
  if (!resolved.ok) {
    yield* closeCall(run, call, resolved.error, 'error');
    return undefined;
  }
  const { tool, input } = resolved;
  const hooks = run.deps.middlewares.flatMap((m) =>
    m.onCheckPermission ? [m.onCheckPermission] : [],
  );
  const inner = async (context: PermissionCheckContext): Promise<PermissionDecision> =>
    context.confirmedByUser
      ? {
          behavior: 'allow',
          message: agentTexts.alreadyAllowed,
          decisionReason: 'user confirmation',
        }
      : run.deps.engine.check(tool, input);
  let decision: PermissionDecision;
  if (hooks.length === 0) {
    decision = await inner({ ...run.info, toolCall: call, input, tool, confirmedByUser });
  } else {
    decision = await compose(
      hooks,
      inner,
    )({
      ...run.info,
      toolCall: structuredClone(call),
      input: structuredClone(input),
      tool,
      confirmedByUser,
    });
  }
  return { tool, input, decision };
}
