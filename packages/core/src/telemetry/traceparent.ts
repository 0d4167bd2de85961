import type { SpanContext } from '@opentelemetry/api';
import { isSpanContextValid } from '@opentelemetry/api';

const pattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as a W3C `traceparent` value (version 00), the form parked states keep. */
export function toTraceParent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/**
 * The remote span context a stored `traceparent` names, or `undefined` when
 * it is not one (a stored value is never trusted: a bad one only loses the
 * link, it never fails the resume).
 */
export function fromTraceParent(value: string | undefined): SpanContext | undefined {
  if (value === undefined) return undefined;
  const match = pattern.exec(value);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}
