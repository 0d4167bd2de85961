import { describe, expect, it } from 'vitest';
import {
  TelemetryConfigError,
  captureContentWanted,
  exporterUrl,
  metricsWanted,
  otlpProtocol,
  startTelemetry,
  telemetryWanted,
  withTelemetry,
} from './telemetry.js';

describe('telemetryWanted', () => {
  it('asks for an SDK only when an OTLP endpoint is set and the SDK is not disabled', () => {
    expect(telemetryWanted({})).toBe(false);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }),
    ).toBe(false);
  });

  it("takes the config's endpoint as the switch too; OTEL_SDK_DISABLED still wins", () => {
    const settings = { endpoint: 'http://otel.example:4318' };
    expect(telemetryWanted({}, settings)).toBe(true);
    expect(telemetryWanted({}, { endpoint: ' ' })).toBe(false);
    expect(telemetryWanted({ OTEL_SDK_DISABLED: 'true' }, settings)).toBe(false);
  });

  it('exports metrics with the traces unless OTEL_METRICS_EXPORTER=none', () => {
    expect(metricsWanted({})).toBe(true);
    expect(metricsWanted({ OTEL_METRICS_EXPORTER: 'otlp' })).toBe(true);
    expect(metricsWanted({ OTEL_METRICS_EXPORTER: 'None' })).toBe(false);
  });

  it("gives exporters the config's endpoint with the signal's path, unless the environment names one", () => {
    const settings = { endpoint: 'http://otel.example:4318/' };
    expect(exporterUrl({}, settings, 'traces')).toBe('http://otel.example:4318/v1/traces');
    expect(exporterUrl({}, settings, 'metrics')).toBe('http://otel.example:4318/v1/metrics');
    expect(exporterUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, settings, 'traces')).toBe(
      undefined,
    );
    expect(
      exporterUrl({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:4318' }, settings, 'metrics'),
    ).toBe(undefined);
    expect(
      exporterUrl({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:4318' }, settings, 'traces'),
    ).toBe('http://otel.example:4318/v1/traces');
    expect(exporterUrl({}, undefined, 'traces')).toBe(undefined);
  });

  it('captures content only when the config or the GenAI variable says so', () => {
    const variable = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
    expect(captureContentWanted({})).toBe(false);
    expect(captureContentWanted({ [variable]: 'TRUE' })).toBe(true);
    expect(captureContentWanted({ [variable]: 'true' }, { captureContent: false })).toBe(false);
    expect(captureContentWanted({}, { captureContent: true })).toBe(true);
  });

  it('starts nothing without an endpoint, and still runs the command', async () => {
    expect(await startTelemetry({})).toBeUndefined();
    expect(await withTelemetry({}, () => Promise.resolve(7))).toBe(7);
  });
});

describe('otlpProtocol', () => {
  it('is http/protobuf unless the traces or general protocol variable says http/json', () => {
    expect(otlpProtocol({})).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: ' ' })).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      otlpProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toBe('http/protobuf');
  });

  it('refuses grpc, which parley does not install, before loading anything', async () => {
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      TelemetryConfigError,
    );
    await expect(
      startTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).rejects.toThrow(/http\/protobuf/);
    expect(() =>
      otlpProtocol(
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' },
        'METRICS',
      ),
    ).toThrow(TelemetryConfigError);
  });
});
