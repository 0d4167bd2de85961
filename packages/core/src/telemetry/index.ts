import type { Meter, Tracer } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { INSTRUMENTATION_NAME } from './attributes.js';
import type { TraceSettings } from './reply-trace.js';

export { PARKED_EVENT, INSTRUMENTATION_NAME, attr as traceAttributes } from './attributes.js';
export { ReplyTrace } from './reply-trace.js';
export { ReplyMetrics, metricNames, reasonKind } from './metrics.js';
export type { AnswerOutcome } from './metrics.js';
export type { ResumeInfo, TraceSettings } from './reply-trace.js';
export { fromTraceParent, toTraceParent } from './traceparent.js';

/**
 * Tracing options of an agent (`AgentOptions.telemetry`). Parley depends on
 * `@opentelemetry/api` only: spans go to whatever SDK the program installed,
 * and are non-recording (nearly free) when it installed none.
 */
export type TelemetryOptions = {
  /** The tracer to use (default: the global one named `@parley/core`). */
  tracer?: Tracer;
  /**
   * The meter of the reply metrics (default: the global meter provider's,
   * named `@parley/core`, looked up at each recording).
   */
  meter?: Meter;
  /**
   * Put content on spans: model output text, tool inputs and results
   * (default `false`: they may hold personal data or secrets).
   */
  captureContent?: boolean;
};

/** The settings a reply's trace runs with, defaults filled in. */
export function traceSettings(options: TelemetryOptions | undefined): TraceSettings {
  return {
    tracer: options?.tracer ?? trace.getTracer(INSTRUMENTATION_NAME),
    captureContent: options?.captureContent ?? false,
  };
}
