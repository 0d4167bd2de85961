// The OpenTelemetry SDK is loaded only when tracing is switched on, checked
// rather than assumed (module-log.ts records what `parley serve` loads).
// Without OTEL_EXPORTER_OTLP_ENDPOINT no SDK or exporter module may be among
// them; with it (or with a config file's telemetry endpoint), the trace and
// metrics SDKs and the default (http/protobuf) exporters must be, and a
// request's span must reach the receiver as OTLP protobuf.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleRecorder, sdkModule, withoutOtel } from './module-log.js';
import { startServeNode, stopServeNode } from './serve-node.js';

const folder = mkdtempSync(join(tmpdir(), 'parley-otel-loading-'));
const exports: { path: string; type: string; bytes: number }[] = [];
let receiver: Server | undefined;
let endpoint = '';

/** Runs `parley serve`, asks it for /healthz, stops it; returns the modules it loaded. */
async function serveOnce(
  name: string,
  otel: Record<string, string>,
  extra: string[] = [],
): Promise<string[]> {
  const recorder = moduleRecorder(folder, name);
  const node = await startServeNode(
    ['--model', 'scripted:demo', '--port', '0', '--data', join(folder, name), ...extra],
    { ...withoutOtel(process.env), ...otel, ...recorder.env },
  );
  try {
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  } finally {
    await stopServeNode(node);
  }
  return recorder.modules();
}

describe('the OpenTelemetry SDK is loaded only when tracing is on', () => {
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () => {
        exports.push({
          path: request.url ?? '',
          type: request.headers['content-type'] ?? '',
          bytes,
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT, parley serve loads the API only', async () => {
    const modules = await serveOnce('off', {});
    expect(modules.some((module) => module.includes('@opentelemetry/api/'))).toBe(true);
    expect(modules.filter((module) => sdkModule.test(module))).toEqual([]);
  }, 60_000);

  it('with it, parley serve loads the trace and metrics SDKs and exports over OTLP/HTTP protobuf', async () => {
    const modules = await serveOnce('on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    const sdk = modules.filter((module) => sdkModule.test(module));
    expect(sdk.some((module) => module.includes('@opentelemetry/sdk-metrics/'))).toBe(true);
    expect(
      sdk.some((module) => module.includes('@opentelemetry/exporter-metrics-otlp-proto/')),
    ).toBe(true);
    expect(sdk.some((module) => module.includes('@opentelemetry/sdk-trace-node/'))).toBe(true);
    expect(sdk.some((module) => module.includes('@opentelemetry/exporter-trace-otlp-proto/'))).toBe(
      true,
    );
    expect(sdk.some((module) => module.includes('@opentelemetry/exporter-trace-otlp-http/'))).toBe(
      false,
    );
    const traces = exports.filter(({ path }) => path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]?.type).toBe('application/x-protobuf');
    expect(traces[0]?.bytes).toBeGreaterThan(0);
  }, 60_000);

  it("with the config file's telemetry endpoint instead, it does the same", async () => {
    exports.length = 0;
    const config = join(folder, 'parley.config.json');
    writeFileSync(config, JSON.stringify({ telemetry: { endpoint } }));
    const modules = await serveOnce('config', {}, ['--config', config]);
    const sdk = modules.filter((module) => sdkModule.test(module));
    expect(sdk.some((module) => module.includes('@opentelemetry/sdk-trace-node/'))).toBe(true);
    const traces = exports.filter(({ path }) => path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]?.type).toBe('application/x-protobuf');
  }, 60_000);
});
