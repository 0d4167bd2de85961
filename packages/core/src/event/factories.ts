import { newId, nowIso } from '../util/ids.js';
import type { AgentEvent, AgentEventFields, AgentEventType } from './output-events.js';

/** Builds an output event of `type`, filling `id`, `createdAt` and `metadata`. */
export function makeEvent<T extends AgentEventType>(
  type: T,
  fields: AgentEventFields<T>,
): Extract<AgentEvent, { type: T }> {
  return { id: newId(), createdAt: nowIso(), metadata: {}, type, ...fields } as Extract<
    AgentEvent,
    { type: T }
  >;
}
