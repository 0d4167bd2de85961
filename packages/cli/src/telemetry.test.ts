import { describe, expect, it } from 'vitest';
import { startTelemetry, telemetryWanted, withTelemetry } from './telemetry.js';

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
