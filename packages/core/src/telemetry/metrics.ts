import type { Attributes, Counter, Histogram, Meter, MeterProvider } from '@opentelemetry/api';
import { ValueType, metrics } from '@opentelemetry/api';
import type { PermissionDecision } from '../permission/index.js';
import { INSTRUMENTATION_NAME, attr } from './attributes.js';
import type { ResumeInfo } from './reply-trace.js';

/** Metric names and their own attributes (the rest are the span attributes of `attr`). */
export const metricNames = {
  /** Histogram, seconds: how long a reply stayed parked, recorded when it resumes. */
  parkedDuration: 'parley.reply.parked.duration',
  /** Counter: the answers that resumed parked replies, by `parley.answer.outcome`. */
  answers: 'parley.reply.answers',
  /** Counter: permission decisions on tool calls, by behavior and reason kind. */
  permissionDecisions: 'parley.permission.decisions',
  /** Attribute: `confirmed`, `denied`, `edited`, `external`, `interrupted` or `expired`. */
  outcome: 'parley.answer.outcome',
  /** Attribute: `rule`, `user`, `read_only`, `mode`, `error` or `other`. */
  reasonKind: 'parley.permission.reason_kind',
} as const;

/** How an answered call (or a whole resume) went, as `parley.reply.answers` counts it. */
export type AnswerOutcome =
  'confirmed' | 'denied' | 'edited' | 'external' | 'interrupted' | 'expired';

/**
 * Bucket bounds for the parked time, in seconds: a park may last seconds or
 * days (the SDK's default bounds stop at 10 000).
 */
const PARKED_BUCKETS = [
  1,
  5,
  15,
  60,
  300,
  900,
  1800,
  3600,
  4 * 3600,
  12 * 3600,
  86_400,
  3 * 86_400,
  7 * 86_400,
];

type Instruments = { parked: Histogram; answers: Counter; decisions: Counter };

function instrumentsOf(meter: Meter): Instruments {
  return {
    parked: meter.createHistogram(metricNames.parkedDuration, {
      description: 'Time a reply stayed parked, waiting for an answer, recorded at its resume.',
      unit: 's',
      advice: { explicitBucketBoundaries: PARKED_BUCKETS },
    }),
    answers: meter.createCounter(metricNames.answers, {
      description: 'Answers that resumed parked replies, one per answered tool call, by outcome.',
      unit: '{answer}',
      valueType: ValueType.INT,
    }),
    decisions: meter.createCounter(metricNames.permissionDecisions, {
      description: 'Permission decisions on tool calls, by behavior and the kind of reason.',
      unit: '{decision}',
      valueType: ValueType.INT,
    }),
  };
}

/** The instruments of the global meter provider, made again when another one is installed. */
let global: { provider: MeterProvider; instruments: Instruments } | undefined;

function globalInstruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (global?.provider !== provider) {
    global = { provider, instruments: instrumentsOf(provider.getMeter(INSTRUMENTATION_NAME)) };
  }
  return global.instruments;
}

/** The kind of reason a decision was made for, with few values (a metric attribute). */
export function reasonKind(
  outcome: PermissionDecision | Error,
  confirmedByUser: boolean,
): 'rule' | 'user' | 'read_only' | 'mode' | 'error' | 'other' {
  if (outcome instanceof Error) return 'error';
  if (outcome.matchedRule !== undefined) return 'rule';
  if (confirmedByUser) return 'user';
  if (outcome.decisionReason === 'read-only') return 'read_only';
  if (outcome.decisionReason?.startsWith('mode: ') === true) return 'mode';
  return 'other';
}

/**
 * The metrics of replies, through `@opentelemetry/api`: with no SDK
 * installed every instrument is a no-op. The global meter provider is looked
 * up at each recording (a provider installed after the agent was built is
 * used), unless a meter was given.
 */
export class ReplyMetrics {
  private readonly own: Instruments | undefined;

  constructor(meter?: Meter) {
    this.own = meter === undefined ? undefined : instrumentsOf(meter);
  }

  private get instruments(): Instruments {
    return this.own ?? globalInstruments();
  }

  /**
   * A parked reply resumes: the time it was parked (when known) and one
   * answer per outcome given. Runs that are not resumes record nothing.
   */
  resumed(agentName: string, resume: ResumeInfo, outcomes: readonly AnswerOutcome[]): void {
    if (outcomes.length === 0) return;
    const instruments = this.instruments;
    const base: Attributes = { [attr.agentName]: agentName };
    if (resume.waitSeconds !== undefined) {
      instruments.parked.record(resume.waitSeconds, { ...base, [attr.resumeKind]: resume.kind });
    }
    for (const outcome of outcomes) {
      instruments.answers.add(1, { ...base, [metricNames.outcome]: outcome });
    }
  }

  /** One permission decision on a tool call (a check that threw counts as a deny). */
  decided(
    agentName: string,
    toolName: string,
    outcome: PermissionDecision | Error,
    confirmedByUser: boolean,
  ): void {
    this.instruments.decisions.add(1, {
      [attr.agentName]: agentName,
      [attr.toolName]: toolName,
      [attr.permissionBehavior]: outcome instanceof Error ? 'deny' : outcome.behavior,
      [metricNames.reasonKind]: reasonKind(outcome, confirmedByUser),
    });
  }
}
