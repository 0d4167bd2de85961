// `parley serve` with OTEL_EXPORTER_OTLP_ENDPOINT set exports its spans over
// OTLP/HTTP: a receiver on 127.0.0.1 takes the requests the Node SDK sends
// (OTLP JSON, as OTEL_EXPORTER_OTLP_PROTOCOL=http/json asks) and the test
// reads the trace of a reply that parks, is confirmed and resumes, and the
// metrics it recorded (sent with the spans when the SDK shuts down).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, readFrames, startServeNode, stopServeNode } from './serve-node.js';
import type { ServeNode } from './serve-node.js';

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpLink = { traceId: string; spanId: string; attributes?: OtlpAttribute[] };
type OtlpSpan = {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: OtlpAttribute[];
  links?: OtlpLink[];
  events?: { name: string }[];
};
type OtlpRequest = { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
type OtlpPoint = {
  attributes?: OtlpAttribute[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
};
type OtlpMetric = {
  name: string;
  unit?: string;
  sum?: { dataPoints?: OtlpPoint[] };
  histogram?: { dataPoints?: OtlpPoint[] };
};
type OtlpMetricsRequest = {
  resourceMetrics?: { scopeMetrics?: { metrics?: OtlpMetric[] }[] }[];
};

const data = mkdtempSync(join(tmpdir(), 'parley-tracing-'));
const received: OtlpSpan[] = [];
const metrics: OtlpMetric[] = [];
const paths: string[] = [];
let receiver: Server | undefined;
let node: ServeNode | undefined;

function value(attributes: OtlpAttribute[] | undefined, key: string): unknown {
  const found = attributes?.find((attribute) => attribute.key === key)?.value;
  return found?.stringValue ?? found?.intValue ?? found?.doubleValue;
}

function takeSpans(body: string): void {
  const parsed = JSON.parse(body) as OtlpRequest;
  for (const resource of parsed.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) received.push(...(scope.spans ?? []));
  }
}

function takeMetrics(body: string): void {
  const parsed = JSON.parse(body) as OtlpMetricsRequest;
  for (const resource of parsed.resourceMetrics ?? []) {
    for (const scope of resource.scopeMetrics ?? []) metrics.push(...(scope.metrics ?? []));
  }
}

describe('parley serve exports traces and metrics over OTLP/HTTP', () => {
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        paths.push(request.url ?? '');
        if (request.url === '/v1/traces') takeSpans(body);
        if (request.url === '/v1/metrics') takeMetrics(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    node = await startServeNode(['--model', 'scripted:demo', '--port', '0', '--data', data], {
      ...process.env,
      PARLEY_DEMO_PACE_MS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'parley-test',
    });
  }, 60_000);

  afterAll(async () => {
    await stopServeNode(node);
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(data, { recursive: true, force: true });
  });

  it('a parked and confirmed reply reads as two linked invoke_agent spans', async () => {
    const served = node;
    if (served === undefined) throw new Error('not started');
    const [, loginName = '', token = ''] =
      /\(as (\S+), this run only\): (\S+)/.exec(served.output()) ?? [];
    const created = await call(served, 'POST', '/v1/sessions', { token });
    const { id } = (await created.json()) as { id: string };
    const reply = (body: unknown) =>
      call(served, 'POST', `/v1/sessions/${id}/replies`, {
        token,
        body,
        headers: { accept: 'text/event-stream' },
      });
    const first = await readFrames(await reply({ input: 'hello' }), () => false);
    expect(first.at(-1)?.event).toBe('REQUIRE_USER_CONFIRM');
    const summary = (await (await call(served, 'GET', `/v1/sessions/${id}`, { token })).json()) as {
      waiting: { replyId: string; toolCalls: { id: string; name: string; input: string }[] };
    };
    const confirmResults = summary.waiting.toolCalls.map(({ id: callId, name, input }) => ({
      confirmed: true,
      toolCall: { type: 'tool_call', id: callId, name, input, state: 'asking', suggestedRules: [] },
    }));
    const second = await readFrames(
      await reply({
        input: { type: 'USER_CONFIRM_RESULT', replyId: summary.waiting.replyId, confirmResults },
      }),
      () => false,
    );
    expect(second.map((frame) => frame.event)).toContain('TOOL_RESULT_END');

    // SIGTERM: the SDK is shut down, which flushes the batched spans.
    await stopServeNode(served);
    expect(paths).toContain('/v1/traces');
    const replies = received.filter((span) => span.name === 'invoke_agent assistant');
    expect(replies.length).toBeGreaterThanOrEqual(2);
    const parked = replies.find((span) =>
      span.events?.some((event) => event.name === 'parley.reply.parked'),
    );
    if (parked === undefined) throw new Error('no parked reply span');
    const resumed = replies.find((span) => (span.links ?? []).length > 0);
    if (resumed === undefined) throw new Error('no resumed reply span');
    expect(resumed.links?.[0]).toMatchObject({ traceId: parked.traceId, spanId: parked.spanId });
    expect(value(resumed.links?.[0]?.attributes, 'parley.resume.approver')).toBe(loginName);
    expect(value(resumed.links?.[0]?.attributes, 'parley.resume.answer')).toBe('confirm');
    const children = received
      .filter((span) => span.parentSpanId === parked.spanId)
      .map((span) => span.name);
    expect(children.some((name) => name.startsWith('chat '))).toBe(true);
    expect(children.some((name) => name.startsWith('check_permission '))).toBe(true);
    const resumedChildren = received
      .filter((span) => span.parentSpanId === resumed.spanId)
      .map((span) => span.name);
    expect(resumedChildren.some((name) => name.startsWith('execute_tool '))).toBe(true);

    expect(paths).toContain('/v1/metrics');
    const metric = (name: string) => metrics.filter((found) => found.name === name);
    const answers = metric('parley.reply.answers').flatMap((found) => found.sum?.dataPoints ?? []);
    expect(
      answers.map((point) => [
        value(point.attributes, 'parley.answer.outcome'),
        Number(point.asInt ?? point.asDouble),
      ]),
    ).toContainEqual(['confirmed', 1]);
    const parkedTime = metric('parley.reply.parked.duration');
    expect(parkedTime[0]?.unit).toBe('s');
    expect(Number(parkedTime[0]?.histogram?.dataPoints?.[0]?.count)).toBe(1);
    const decisions = metric('parley.permission.decisions').flatMap(
      (found) => found.sum?.dataPoints ?? [],
    );
    expect(
      decisions.map((point) => value(point.attributes, 'parley.permission.reason_kind')),
    ).toContain('user');
  }, 60_000);
});
