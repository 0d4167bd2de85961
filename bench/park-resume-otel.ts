// Park/resume with and without an OpenTelemetry SDK: the cost of tracing
// (and metrics) per human-in-the-loop round trip, in one process run.
//
// The round trip of bench/park-resume.ts (a write_file call that asks, the
// reply parks and is saved; a fresh agent resumes it with the approval, the
// tool runs, the model answers), on InMemorySessionStore so the database
// does not hide the difference. Three variants, interleaved round by round:
//   none:    no SDK installed (the global API's no-op tracer and meter);
//   traces:  the trace SDK registered globally, every span sampled, a
//            BatchSpanProcessor on an exporter that drops what it gets;
//   +metrics: the same, plus a MeterProvider (a reader that is never read:
//            the instruments aggregate, nothing is exported).
// It reports the median and p90 of a round trip per variant, the ratio to
// `none`, and the spans exported per round trip (to show they were made).
//
//   npx tsx --conditions=@parley/source bench/park-resume-otel.ts
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { InMemorySessionStore } from '@parley/core';
import { ms, park, quantile, ratio, resume, sessionsOn } from './park-resume-workload.js';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const PER_ROUND = Number(process.env.PER_ROUND ?? 50);
const WARMUP = Number(process.env.WARMUP ?? 5);

/** An exporter that counts the spans and drops them. */
class DroppingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.spans += spans.length;
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A metric reader nobody reads: the SDK aggregates, nothing leaves. */
class IdleReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

type Variant = 'none' | 'traces' | '+metrics';
const variants: Variant[] = ['none', 'traces', '+metrics'];

const exporter = new DroppingExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new BatchSpanProcessor(exporter)],
});
const meterProvider = new MeterProvider({ readers: [new IdleReader()] });

function install(variant: Variant): void {
  trace.disable();
  metrics.disable();
  if (variant === 'none') return;
  trace.setGlobalTracerProvider(tracerProvider);
  if (variant === '+metrics') metrics.setGlobalMeterProvider(meterProvider);
}

let next = 0;
/** PER_ROUND round trips on fresh session ids; the time of each, in ms. */
async function round(variant: Variant): Promise<number[]> {
  install(variant);
  // Built after the install: Sessions takes its store's tracer when built.
  const sessions = sessionsOn(new InMemorySessionStore());
  const times: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    const id = `s${next++}`;
    const start = performance.now();
    await resume(sessions, id, await park(sessions, id));
    times.push(performance.now() - start);
  }
  return times;
}

const times: Record<Variant, number[]> = { none: [], traces: [], '+metrics': [] };
for (let i = 0; i < WARMUP; i++) for (const variant of variants) await round(variant);
let tracedTrips = 0;
await tracerProvider.forceFlush(); // the warm-up's spans are not counted
const before = exporter.spans;
for (let i = 0; i < ROUNDS; i++) {
  // Rotate the order so no variant always runs first after a GC-heavy one.
  for (let j = 0; j < variants.length; j++) {
    const variant = variants[(i + j) % variants.length] ?? 'none';
    times[variant].push(...(await round(variant)));
    if (variant !== 'none') tracedTrips += PER_ROUND;
  }
}
await tracerProvider.forceFlush();
const spansPerTrip = (exporter.spans - before) / tracedTrips;
install('none');

const median = (variant: Variant): number => quantile(times[variant], 0.5);
console.log(
  `park→resume round trip, InMemorySessionStore, ${ROUNDS}×${PER_ROUND} per variant ` +
    `(Node ${process.version})`,
);
for (const variant of variants) {
  const p50 = median(variant);
  const p90 = quantile(times[variant], 0.9);
  console.log(
    `  ${variant.padEnd(9)} p50 ${ms(p50)}  p90 ${ms(p90)}  ` +
      `${ratio(p50, median('none'))} of none (+${ms(p50 - median('none'))})`,
  );
}
console.log(`  spans exported per traced round trip: ${spansPerTrip.toFixed(1)}`);
await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
