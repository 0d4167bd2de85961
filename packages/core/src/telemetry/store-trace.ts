import type { Attributes, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { SessionStore } from '../session/index.js';
import { INSTRUMENTATION_NAME, attr } from './attributes.js';

async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  run: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
  try {
    // `run` starts before the first await: a save still reads its state at once.
    return await run();
  } catch (error) {
    span.setAttribute(attr.errorType, error instanceof Error ? error.name : typeof error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `store` with a span per `load` and `save` (`session_store load`,
 * `session_store save`: the session id, the versions), so a trace shows
 * where a reply waited on its store. Every other method is the store's
 * own; a method the store leaves out stays left out.
 */
export function tracedStore(
  store: SessionStore,
  tracer: Tracer = trace.getTracer(INSTRUMENTATION_NAME),
): SessionStore {
  const traced: SessionStore = {
    load: (sessionId) =>
      inSpan(
        tracer,
        'session_store load',
        { [attr.conversationId]: sessionId, 'db.operation.name': 'load' },
        () => store.load(sessionId),
      ),
    save: (sessionId, state, expectedVersion, options) =>
      inSpan(
        tracer,
        'session_store save',
        {
          [attr.conversationId]: sessionId,
          'db.operation.name': 'save',
          'parley.store.expected_version': expectedVersion,
        },
        () => store.save(sessionId, state, expectedVersion, options),
      ),
  };
  if (store.listAudit !== undefined) traced.listAudit = store.listAudit.bind(store);
  if (store.listDue !== undefined) traced.listDue = store.listDue.bind(store);
  if (store.renewLease !== undefined) traced.renewLease = store.renewLease.bind(store);
  return traced;
}
