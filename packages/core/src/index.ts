/**
 * @parley/core: messages, events, the permission engine, tools, the agent
 * loop, agent state and the session store port.
 */
export * from './errors/index.js';
export * from './message/index.js';
export * from './model/index.js';
export * from './permission/index.js';
export * from './tool/index.js';
export * from './event/index.js';
export * from './state/index.js';
export * from './session/index.js';
export * from './agent/index.js';
export * from './session/runner/index.js';
export {
  INSTRUMENTATION_NAME,
  PARKED_EVENT,
  fromTraceParent,
  metricNames,
  toTraceParent,
  traceAttributes,
} from './telemetry/index.js';
export type { AnswerOutcome, TelemetryOptions } from './telemetry/index.js';
