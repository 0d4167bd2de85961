// The OpenTelemetry SDK is loaded only when tracing is switched on, checked
// rather than assumed: `parley serve` runs with a preloaded module
// (NODE_OPTIONS=--import) that records every module resolved through the ESM
// loader, and, at exit, every CommonJS module in require.cache. Without
// OTEL_EXPORTER_OTLP_ENDPOINT no SDK or exporter module may be among them;
// with it, the trace SDK must be (so the recording is known to work).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeNode, stopServeNode } from './serve-node.js';

const folder = mkdtempSync(join(tmpdir(), 'parley-otel-loading-'));
let receiver: Server | undefined;
let endpoint = '';

const hooks = `import { appendFileSync } from 'node:fs';
let log = '';
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const record = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const log = process.env.PARLEY_MODULE_LOG;
register(new URL('./hooks.mjs', import.meta.url), { data: { log } });
process.on('exit', () => {
  appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');
});
`;

/** The SDK's modules: anything from OpenTelemetry but the API the libraries use. */
const sdkModule = /@opentelemetry[/\\](?!api[/\\])/;

/** Runs `parley serve` to its first line and stops it; returns the modules it loaded. */
async function modulesLoaded(name: string, otel: Record<string, string>): Promise<string[]> {
  const log = join(folder, `${name}.log`);
  writeFileSync(log, '');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('OTEL_') && key !== 'NODE_OPTIONS') env[key] = value;
  }
  const node = await startServeNode(
    ['--model', 'scripted:demo', '--port', '0', '--data', join(folder, name)],
    {
      ...env,
      ...otel,
      PARLEY_MODULE_LOG: log,
      NODE_OPTIONS: `--import ${pathToFileURL(join(folder, 'record.mjs')).href}`,
    },
  );
  await stopServeNode(node);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('the OpenTelemetry SDK is loaded only when tracing is on', () => {
  beforeAll(async () => {
    writeFileSync(join(folder, 'hooks.mjs'), hooks);
    writeFileSync(join(folder, 'record.mjs'), record);
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT, parley serve loads the API only', async () => {
    const modules = await modulesLoaded('off', {});
    expect(modules.some((module) => module.includes('@opentelemetry/api/'))).toBe(true);
    expect(modules.filter((module) => sdkModule.test(module))).toEqual([]);
  }, 60_000);

  it('with it, parley serve loads the trace SDK and the OTLP/HTTP exporter', async () => {
    const modules = await modulesLoaded('on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    const sdk = modules.filter((module) => sdkModule.test(module));
    expect(sdk.some((module) => module.includes('@opentelemetry/sdk-trace-node/'))).toBe(true);
    expect(sdk.some((module) => module.includes('@opentelemetry/exporter-trace-otlp-proto/'))).toBe(
      true,
    );
  }, 60_000);
});
