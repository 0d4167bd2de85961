import { EventType } from '@ag-ui/core';
import type { BaseEvent } from '@ag-ui/core';
import { InterruptSchema, MessageSchema } from '@ag-ui/core/schemas';
import { parseAgentEvent } from '@parley/core';
import { z } from 'zod';
import type { StoredEvent } from '../log/session-log.js';
import { AguiEventMapper } from './event-mapper.js';
import type { StoredInterrupt, StoredMessage } from './wire-types.js';

/**
 * How a run ended, beside its Parley events: what stands open (computed from
 * the stored state once its replies were over), the conversation for the
 * snapshot when something does, notes made while it ran, and why it failed
 * if a reply could not be run. Stored with the run, so that the same run
 * asked again is shown again exactly.
 */
export type RunOutline = {
  warnings: string[];
  notes: string[];
  interrupts: StoredInterrupt[];
  pendingToolCallIds: string[];
  messages: StoredMessage[] | null;
  failure: { message: string; code: string } | null;
};

const outlineSchema = z.object({
  warnings: z.array(z.string()),
  notes: z.array(z.string()),
  interrupts: z.array(InterruptSchema),
  pendingToolCallIds: z.array(z.string()),
  messages: z.array(MessageSchema).nullable(),
  failure: z.object({ message: z.string(), code: z.string() }).nullable(),
});

/** Reads a stored outline back (the JSON `startAguiRun` stored with the run). */
export function parseOutline(text: string): RunOutline {
  const parsed = outlineSchema.parse(JSON.parse(text));
  return {
    warnings: parsed.warnings,
    notes: parsed.notes,
    interrupts: parsed.interrupts,
    pendingToolCallIds: parsed.pendingToolCallIds,
    messages: parsed.messages,
    failure: parsed.failure,
  };
}

/** The `CUSTOM` event that tells the client something was ignored. */
const warning = (message: string): BaseEvent => ({
  type: EventType.CUSTOM,
  name: 'parley.warning',
  value: { message },
});

/** What a run is shown from: its ids, its warnings, its Parley events, its outline. */
export type RunShow = {
  threadId: string;
  runId: string;
  warnings: readonly string[];
  events: AsyncIterable<StoredEvent>;
  outline: Promise<RunOutline> | RunOutline;
};

/**
 * A run as AG-UI events: `RUN_STARTED`, a `CUSTOM` `parley.warning` per
 * warning (made before the run started), the Parley events mapped, then the end: `RUN_ERROR` when a reply
 * failed; otherwise `MESSAGES_SNAPSHOT` when something stands open, and
 * `RUN_FINISHED` with the interrupts (`interrupt`), the client's pending
 * tool calls (`success`), `cancelled` when the reply was stopped, or
 * `success`, with the token usage of the run's model calls.
 */
export async function* showRun(show: RunShow): AsyncGenerator<BaseEvent, void, undefined> {
  const { threadId, runId } = show;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  for (const message of show.warnings) yield warning(message);
  const mapper = new AguiEventMapper();
  for await (const stored of show.events) {
    for (const event of mapper.map(parseAgentEvent(JSON.parse(stored.data)))) yield event;
  }
  yield* mapper.close();
  const outline = await show.outline;
  for (const message of outline.notes) yield warning(message);
  const usage = mapper.usage();
  const usageField = usage.length === 0 ? {} : { usage };
  const failure = mapper.error() ?? outline.failure;
  if (failure !== null && failure !== undefined) {
    yield {
      type: EventType.RUN_ERROR,
      message: failure.message,
      code: failure.code,
      ...usageField,
    };
    return;
  }
  if (outline.messages !== null) {
    yield { type: EventType.MESSAGES_SNAPSHOT, messages: outline.messages };
  }
  const [first, ...rest] = outline.interrupts;
  const outcome =
    first !== undefined
      ? { type: 'interrupt' as const, interrupts: [first, ...rest] }
      : outline.pendingToolCallIds.length > 0
        ? { type: 'success' as const, pendingToolCallIds: outline.pendingToolCallIds }
        : mapper.endedInterrupted()
          ? { type: 'cancelled' as const }
          : { type: 'success' as const };
  yield { type: EventType.RUN_FINISHED, threadId, runId, outcome, ...usageField };
}
