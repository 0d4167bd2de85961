// The OpenTelemetry SDK for `parley serve` and `parley chat`. The library
// packages take @opentelemetry/api as a peer; this is the one place an SDK
// is installed, and only when the environment (or `parley serve`'s config
// file) asks for one. Traces and metrics: the trace and metrics SDKs and
// one OTLP/HTTP exporter for each, not the whole Node SDK
// (core-0006-opentelemetry-dependencies.md).

/** A started SDK: `shutdown` flushes the spans still batched and the metrics, then stops it. */
export type Telemetry = { shutdown: () => Promise<void> };

/**
 * The `telemetry` section of `parley serve`'s config file, as a switch
 * equivalent to the environment: `endpoint` acts as
 * `OTEL_EXPORTER_OTLP_ENDPOINT` when the environment sets no endpoint (the
 * environment wins), `captureContent` as
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
 */
export type TelemetrySettings = {
  endpoint?: string | undefined;
  captureContent?: boolean | undefined;
};

const signalEndpoint = {
  traces: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  metrics: 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
} as const;

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** Whether the environment names an OTLP endpoint for `signal` (or for every signal). */
function envEndpoint(env: NodeJS.ProcessEnv, signal: keyof typeof signalEndpoint): boolean {
  return isSet(env['OTEL_EXPORTER_OTLP_ENDPOINT']) || isSet(env[signalEndpoint[signal]]);
}

/**
 * The URL an exporter of `signal` is given: none when the environment names
 * an endpoint (the exporter reads it itself), else the config's endpoint
 * with the signal's path (`/v1/traces`, `/v1/metrics`), as the OTLP
 * specification builds it from `OTEL_EXPORTER_OTLP_ENDPOINT`.
 */
export function exporterUrl(
  env: NodeJS.ProcessEnv,
  settings: TelemetrySettings | undefined,
  signal: keyof typeof signalEndpoint,
): string | undefined {
  if (envEndpoint(env, signal) || !isSet(settings?.endpoint)) return undefined;
  return `${settings.endpoint.trim().replace(/\/+$/, '')}/v1/${signal}`;
}

/**
 * Whether content (prompts, tool inputs and results, model output) goes on
 * spans: the config's `captureContent`, else
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`; off by default.
 */
export function captureContentWanted(
  env: NodeJS.ProcessEnv,
  settings?: TelemetrySettings,
): boolean {
  if (settings?.captureContent !== undefined) return settings.captureContent;
  return env['OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT']?.trim().toLowerCase() === 'true';
}

import { metrics } from '@opentelemetry/api';

/** The OTLP protocols `parley` exports spans over. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The environment asks for tracing in a way `parley` does not offer (e.g. OTLP over gRPC). */
export class TelemetryConfigError extends Error {
  override name = 'TelemetryConfigError';
}

/**
 * Whether the environment (or the config) asks for telemetry to be
 * exported: an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or the config's `endpoint`) and the
 * SDK is not disabled (`OTEL_SDK_DISABLED=true`).
 */
export function telemetryWanted(env: NodeJS.ProcessEnv, settings?: TelemetrySettings): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return envEndpoint(env, 'traces') || isSet(settings?.endpoint);
}

/**
 * Whether metrics are exported too: on with traces, unless
 * `OTEL_METRICS_EXPORTER=none`.
 */
export function metricsWanted(env: NodeJS.ProcessEnv): boolean {
  return env['OTEL_METRICS_EXPORTER']?.trim().toLowerCase() !== 'none';
}

/**
 * The OTLP protocol for traces: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf` (the specification's
 * default). Throws `TelemetryConfigError` for `grpc` or an unknown value.
 */
export function otlpProtocol(
  env: NodeJS.ProcessEnv,
  signal: 'TRACES' | 'METRICS' = 'TRACES',
): OtlpProtocol {
  const raw = [env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`], env['OTEL_EXPORTER_OTLP_PROTOCOL']]
    .map((value) => value?.trim())
    .find((value) => value !== undefined && value !== '');
  const protocol = raw?.toLowerCase() ?? 'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  throw new TelemetryConfigError(
    `OTLP protocol "${raw ?? ''}" is not supported: parley exports telemetry over ` +
      'OTLP/HTTP, "http/protobuf" (the default) or "http/json".',
  );
}

/**
 * Starts the SDK when `telemetryWanted(env, settings)`: a tracer provider
 * with a batch span processor and the OTLP/HTTP exporter for
 * `otlpProtocol(env)`, registered as the global one (with the W3C
 * trace-context propagator), and, unless `OTEL_METRICS_EXPORTER=none`, a
 * meter provider with a periodic reader and the OTLP/HTTP metric exporter,
 * set as the global one. The SDK and exporters read the standard `OTEL_*`
 * variables themselves (endpoint, headers, timeout, sampler, batch sizes,
 * `OTEL_METRIC_EXPORT_INTERVAL`); the resource takes
 * `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`; the service name's
 * default here is `parley`. The SDK is loaded only then, so a run without
 * telemetry does not pay for loading it.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  settings?: TelemetrySettings,
): Promise<Telemetry | undefined> {
  if (!telemetryWanted(env, settings)) return undefined;
  const protocol = otlpProtocol(env);
  const withMetrics = metricsWanted(env);
  const metricsProtocol = withMetrics ? otlpProtocol(env, 'METRICS') : undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources, { OTLPTraceExporter }, metricsSdk] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/resources'),
      protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
      metricsProtocol === undefined ? undefined : loadMetricsSdk(metricsProtocol),
    ]);
  // The default name first, so OTEL_SERVICE_NAME or a service.name in
  // OTEL_RESOURCE_ATTRIBUTES (the environment detector) wins over it.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'parley' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracesUrl = exporterUrl(env, settings, 'traces');
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter(tracesUrl === undefined ? {} : { url: tracesUrl }),
      ),
    ],
  });
  provider.register();
  let meters: { shutdown: () => Promise<void> } | undefined;
  if (metricsSdk !== undefined) {
    const { MeterProvider, PeriodicExportingMetricReader, OTLPMetricExporter } = metricsSdk;
    const metricsUrl = exporterUrl(env, settings, 'metrics');
    const meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter(metricsUrl === undefined ? {} : { url: metricsUrl }),
        }),
      ],
    });
    metrics.setGlobalMeterProvider(meterProvider);
    meters = meterProvider;
  }
  return {
    shutdown: async () => {
      await Promise.all([provider.shutdown(), meters?.shutdown()]);
    },
  };
}

/** The metrics SDK and the OTLP/HTTP metric exporter for `protocol`, loaded only when wanted. */
async function loadMetricsSdk(protocol: OtlpProtocol) {
  const [{ MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }] =
    await Promise.all([
      import('@opentelemetry/sdk-metrics'),
      protocol === 'http/json'
        ? import('@opentelemetry/exporter-metrics-otlp-http')
        : import('@opentelemetry/exporter-metrics-otlp-proto'),
    ]);
  return { MeterProvider, PeriodicExportingMetricReader, OTLPMetricExporter };
}

/** Runs `run` with the SDK started as `startTelemetry` says, and shut down (flushed) after it. */
export async function withTelemetry<T>(
  env: NodeJS.ProcessEnv,
  run: () => Promise<T>,
  settings?: TelemetrySettings,
): Promise<T> {
  const telemetry = await startTelemetry(env, settings);
  try {
    return await run();
  } finally {
    await telemetry?.shutdown();
  }
}
