import { propagation } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTrace } from './http-trace.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('test');

function app(): Hono {
  const served = new Hono();
  served.use('*', httpTrace(tracer));
  served.get('/v1/sessions/:id', (c) => c.json({ id: c.req.param('id') }));
  served.get('/boom', () => {
    throw new Error('boom');
  });
  served.onError((_error, c) => c.json({ code: 'internal' }, 500));
  return served;
}

describe('httpTrace', () => {
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterAll(() => propagation.disable());

  it('a server span per request, named by method and route, with the status', async () => {
    exporter.reset();
    const response = await app().request('/v1/sessions/s1');
    expect(response.status).toBe(200);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('GET /v1/sessions/:id');
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/sessions/:id',
      'url.path': '/v1/sessions/s1',
      'http.response.status_code': 200,
    });
  });

  it('a caller traceparent makes it a child of the caller span; a 500 is an error', async () => {
    exporter.reset();
    const traceId = 'c'.repeat(32);
    const spanId = 'd'.repeat(16);
    const response = await app().request('/boom', {
      headers: { traceparent: `00-${traceId}-${spanId}-01` },
    });
    expect(response.status).toBe(500);
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.parentSpanContext?.spanId).toBe(spanId);
    expect(span?.status.code).toBe(2);
    expect(span?.attributes['http.response.status_code']).toBe(500);
  });
});
