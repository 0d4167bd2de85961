import type { InputEvent } from '../event/index.js';
import type { AgentState } from '../state/index.js';

const adopted = new WeakSet<AgentState>();

/**
 * Hands `state` to the next `new Agent({ state })` as it is: not copied and
 * not validated a second time. For Parley's session runner, which owns the
 * object a store just decoded and validated for it. Not exported from the
 * package: a state a user passes is always copied and validated.
 */
export function adoptState(state: AgentState): AgentState {
  adopted.add(state);
  return state;
}

/** Whether `state` was handed over with `adoptState` (and takes it back: it works once). */
export function takeAdopted(state: AgentState): boolean {
  return adopted.delete(state);
}

const adoptedInputs = new WeakSet<object>();

/**
 * Hands an input event the session runner already parsed (with
 * `parseInputEvent`) to the agent, so it is not parsed twice. Internal, like
 * `adoptState`.
 */
export function adoptInput(event: InputEvent): InputEvent {
  adoptedInputs.add(event);
  return event;
}

/** Whether `value` is an event handed over with `adoptInput` (works once). */
export function takeAdoptedInput(value: unknown): value is InputEvent {
  return typeof value === 'object' && value !== null && adoptedInputs.delete(value);
}
