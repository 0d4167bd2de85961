import { describe, expect, it } from 'vitest';
import {
  TelemetryConfigError,
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
  });
});
