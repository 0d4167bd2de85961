import type { Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';

/** The tracer's name: the server's spans are told apart from core's by it. */
const INSTRUMENTATION_NAME = '@parley/server';

/** Header getter for `propagation.extract` over a fetch `Headers`. */
const headerGetter = {
  keys: (carrier: Headers): string[] => [...carrier.keys()],
  get: (carrier: Headers, key: string): string | undefined => carrier.get(key) ?? undefined,
};

function ended(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * A server span per HTTP request (`GET /v1/sessions/:id`), after the
 * OpenTelemetry HTTP semantic conventions: method, route, path, status. A
 * `traceparent` header the caller sent makes it a child of the caller's
 * span, and the request's handler runs inside it, so the reply a request
 * runs is a child of it. Through `@opentelemetry/api` only: with no SDK
 * installed the span is a non-recording one. `tracer`: for tests.
 */
export function httpTrace(
  tracer: Tracer = trace.getTracer(INSTRUMENTATION_NAME),
): MiddlewareHandler {
  return async (c, next) => {
    const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
    // The route that answers (the last matched), not this middleware's `*`.
    const route = routePath(c, -1);
    const span = tracer.startSpan(
      `${c.req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': c.req.method,
          'http.route': route,
          'url.path': c.req.path,
        },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    }
    ended(span, c.res.status);
  };
}
