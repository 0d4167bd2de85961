import { z } from 'zod';
import type { Msg } from '../message/index.js';
import type { PermissionDecision } from './types.js';

/**
 * Why a tool call asks, kept for whoever answers it: the decision's
 * `message`, its `decisionReason` (`outside the working directories: …`,
 * `Safety: reads a secret: ~/.ssh/id_rsa`) and whether it is a safety ask
 * that no rule can clear. A `ToolCallBlock` carries only its suggested rules
 * (AgentScope's shape), so the reason travels beside it in metadata.
 */
export type PermissionAsk = { message: string; decisionReason?: string; bypassImmune?: boolean };

/**
 * The metadata key holding the asks, `{ [toolCallId]: PermissionAsk }`: in the
 * metadata of a `REQUIRE_USER_CONFIRM` event, and of the reply message while
 * its calls ask (so a parked reply read back from storage still has them).
 */
export const PERMISSION_ASKS_KEY = 'permissionAsks';

const permissionAskSchema = z.strictObject({
  message: z.string(),
  decisionReason: z.string().exactOptional(),
  bypassImmune: z.boolean().exactOptional(),
});
const asksSchema = z.record(z.string(), z.unknown());

/** The part of a decision worth keeping with an asking call. */
export function permissionAskOf(decision: PermissionDecision): PermissionAsk {
  return {
    message: decision.message,
    ...(decision.decisionReason === undefined ? {} : { decisionReason: decision.decisionReason }),
    ...(decision.bypassImmune === true ? { bypassImmune: true } : {}),
  };
}

/** The asks of a metadata record, or an empty record when it has none (or they are malformed). */
function asksIn(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const parsed = asksSchema.safeParse(metadata?.[PERMISSION_ASKS_KEY]);
  return parsed.success ? parsed.data : {};
}

/**
 * Why the tool call asks, read from the metadata of a `REQUIRE_USER_CONFIRM`
 * event or of the parked reply message; undefined when none was kept.
 *
 * @example
 * const ask = findPermissionAsk(event, event.toolCalls[0].id);
 * if (ask?.decisionReason) console.log(ask.decisionReason);
 */
export function findPermissionAsk(
  holder: { metadata?: Record<string, unknown> | undefined },
  toolCallId: string,
): PermissionAsk | undefined {
  const asks = asksIn(holder.metadata);
  if (!Object.hasOwn(asks, toolCallId)) return undefined;
  const parsed = permissionAskSchema.safeParse(asks[toolCallId]);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Keeps the ask of a call in the reply message's metadata. A call id of
 * `__proto__` (the model picks ids) is not kept: copies of the record would
 * drop it, so it could never be read back or dropped again.
 */
export function recordPermissionAsk(message: Msg, toolCallId: string, ask: PermissionAsk): void {
  if (toolCallId === '__proto__') return;
  const asks = { ...asksIn(message.metadata), [toolCallId]: ask };
  message.metadata = { ...message.metadata, [PERMISSION_ASKS_KEY]: asks };
}

/** Drops the ask of a call that no longer asks; the key goes when no call asks. */
export function forgetPermissionAsk(message: Msg, toolCallId: string): void {
  if (message.metadata === undefined || !(PERMISSION_ASKS_KEY in message.metadata)) return;
  const { [toolCallId]: _dropped, ...rest } = asksIn(message.metadata);
  const { [PERMISSION_ASKS_KEY]: _asks, ...others } = message.metadata;
  if (Object.keys(rest).length > 0) message.metadata = { ...others, [PERMISSION_ASKS_KEY]: rest };
  else if (Object.keys(others).length > 0) message.metadata = others;
  else delete message.metadata;
}
