import type { ToolCallBlock } from '../message/index.js';
import type { ChatChunk, ChatRequest } from '../model/index.js';
import type { PermissionDecision } from '../permission/index.js';
import type { Tool, ToolChunk } from '../tool/index.js';

/** Who is running: handed to every middleware. */
export type RunInfo = { agentName: string; sessionId: string; replyId: string };

/**
 * A middleware context: who is running, then the step's own fields. Built
 * from a fresh literal, not by spreading `info`: V8 (Node 20) adds new keys
 * to a spread copy very slowly (about a microsecond each).
 */
export function contextOf<Fields extends object>(info: RunInfo, fields: Fields): RunInfo & Fields {
  const base: RunInfo = {
    agentName: info.agentName,
    sessionId: info.sessionId,
    replyId: info.replyId,
  };
  return Object.assign(base, fields);
}

/** What `onCheckPermission` sees: copies of the call and its parsed input. */
export type PermissionCheckContext = RunInfo & {
  toolCall: ToolCallBlock;
  input: unknown;
  tool: Tool<unknown>;
  /** True when the user already confirmed this call (the engine is skipped). */
  confirmedByUser: boolean;
};

/** What `onActing` sees: copies of the call and its parsed input. */
export type ActingContext = RunInfo & {
  toolCall: ToolCallBlock;
  input: unknown;
  tool: Tool<unknown>;
  signal: AbortSignal;
};

/** What `onModelCall` sees. */
export type ModelCallContext = RunInfo & { request: ChatRequest; signal: AbortSignal };

/**
 * Hooks around the three steps of the loop, in onion order: the first
 * middleware is the outermost, and each calls `next` to go inward (or does
 * not, to short-circuit). Middlewares get copies; they cannot change the
 * stored call except through what they return.
 */
export type Middleware = {
  name?: string;
  onModelCall?: (
    context: ModelCallContext,
    next: (context: ModelCallContext) => AsyncIterable<ChatChunk>,
  ) => AsyncIterable<ChatChunk>;
  onCheckPermission?: (
    context: PermissionCheckContext,
    next: (context: PermissionCheckContext) => Promise<PermissionDecision>,
  ) => Promise<PermissionDecision>;
  onActing?: (
    context: ActingContext,
    next: (context: ActingContext) => AsyncIterable<ToolChunk>,
  ) => AsyncIterable<ToolChunk>;
};

const readOnly = new WeakSet<Middleware>();

/**
 * Marks one of Parley's own middlewares as one that only reads what it is
 * handed, so it is handed the originals rather than copies. Not exported
 * from the package: a user's middleware always gets copies.
 */
export function readsOnly(middleware: Middleware): Middleware {
  readOnly.add(middleware);
  return middleware;
}

/** Whether some middleware with hook `key` may change what it is handed (and so needs copies). */
export function needsCopies(
  middlewares: readonly Middleware[],
  key: 'onCheckPermission' | 'onActing',
): boolean {
  return middlewares.some(
    (middleware) => middleware[key] !== undefined && !readOnly.has(middleware),
  );
}

/** The hooks named `key` of the middlewares that have one, in order. */
export function hooksOf<K extends 'onModelCall' | 'onCheckPermission' | 'onActing'>(
  middlewares: readonly Middleware[],
  key: K,
): NonNullable<Middleware[K]>[] {
  const hooks: NonNullable<Middleware[K]>[] = [];
  for (const middleware of middlewares) {
    const hook = middleware[key];
    if (hook !== undefined) hooks.push(hook);
  }
  return hooks;
}

type Hook<C, R> = (context: C, next: (context: C) => R) => R;

/** Composes hooks around `inner`, the first hook outermost. */
export function compose<C, R>(
  hooks: readonly Hook<C, R>[],
  inner: (context: C) => R,
): (context: C) => R {
  return hooks.reduceRight<(context: C) => R>(
    (next, hook) => (context) => hook(context, next),
    inner,
  );
}
