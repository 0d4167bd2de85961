// The OpenTelemetry trace SDK for `parley serve` and `parley chat`. The
// library packages take @opentelemetry/api as a peer; this is the one place
// an SDK is installed, and only when the environment asks for one. Only
// traces: the trace SDK and one OTLP/HTTP exporter, not the whole Node SDK
// (core-0006-opentelemetry-dependencies.md).

/** A started SDK: `shutdown` flushes the spans still batched, then stops it. */
export type Telemetry = { shutdown: () => Promise<void> };

/** The OTLP protocols `parley` exports spans over. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The environment asks for tracing in a way `parley` does not offer (e.g. OTLP over gRPC). */
export class TelemetryConfigError extends Error {
  override name = 'TelemetryConfigError';
}

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
 * The OTLP protocol for traces: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf` (the specification's
 * default). Throws `TelemetryConfigError` for `grpc` or an unknown value.
 */
export function otlpProtocol(env: NodeJS.ProcessEnv): OtlpProtocol {
  const raw = [env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'], env['OTEL_EXPORTER_OTLP_PROTOCOL']]
    .map((value) => value?.trim())
    .find((value) => value !== undefined && value !== '');
  const protocol = raw?.toLowerCase() ?? 'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  throw new TelemetryConfigError(
    `OTLP protocol "${raw ?? ''}" is not supported: parley exports spans over ` +
      'OTLP/HTTP, "http/protobuf" (the default) or "http/json".',
  );
}

/**
 * Starts the trace SDK when `telemetryWanted(env)`: a tracer provider with a
 * batch span processor and the OTLP/HTTP exporter for `otlpProtocol(env)`,
 * registered as the global one (with the W3C trace-context propagator). The
 * SDK and exporter read the standard `OTEL_*` variables themselves (endpoint,
 * headers, timeout, sampler, batch sizes); the resource takes
 * `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`; the service name's
 * default here is `parley`. The SDK is loaded only then, so a run without tracing does not
 * pay for loading it.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<Telemetry | undefined> {
  if (!telemetryWanted(env)) return undefined;
  const protocol = otlpProtocol(env);
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources, { OTLPTraceExporter }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/resources'),
      protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
  // The default name first, so OTEL_SERVICE_NAME or a service.name in
  // OTEL_RESOURCE_ATTRIBUTES (the environment detector) wins over it.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'parley' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
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
