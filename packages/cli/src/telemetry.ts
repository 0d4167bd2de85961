// The OpenTelemetry Node SDK for `parley serve` and `parley chat`. The
// library packages depend on @opentelemetry/api only; this is the one place
// an SDK is installed, and only when the environment asks for one.

/** A started SDK: `shutdown` flushes the spans still batched, then stops it. */
export type Telemetry = { shutdown: () => Promise<void> };

/**
 * Whether the environment asks for traces to be exported: an OTLP endpoint
 * is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * and the SDK is not disabled (`OTEL_SDK_DISABLED=true`).
 */
export function telemetryWanted(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  return endpoint !== undefined && endpoint.trim() !== '';
}

/**
 * Starts the Node SDK when `telemetryWanted(env)`; the SDK reads the standard
 * `OTEL_*` variables itself (protocol, headers, sampler, batch sizes,
 * resource attributes). The service name defaults to `parley`. The SDK is
 * loaded only then, so a run without tracing does not pay for loading it.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<Telemetry | undefined> {
  if (!telemetryWanted(env)) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK(env['OTEL_SERVICE_NAME'] === undefined ? { serviceName: 'parley' } : {});
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/** Runs `run` with the SDK started as `startTelemetry` says, and shut down (flushed) after it. */
export async function withTelemetry<T>(env: NodeJS.ProcessEnv, run: () => Promise<T>): Promise<T> {
  const telemetry = await startTelemetry(env);
  try {
    return await run();
  } finally {
    await telemetry?.shutdown();
  }
}
