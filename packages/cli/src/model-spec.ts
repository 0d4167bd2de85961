import type { ChatModel } from '@parley/core';

/**
 * `--model` values and how they become a `ChatModel`: `scripted:demo` is
 * the CLI's own offline demo; everything else goes to `createModel` of
 * `@parley/models`, which owns the provider spec syntax. This is the one
 * module that knows how models are made.
 */

/** What `--model` asked for. */
export type ModelChoice = { kind: 'demo' } | { kind: 'commands' } | { kind: 'model'; spec: string };

/** A `--model` value the CLI refuses before reaching the adapters. */
export class ModelSpecError extends Error {
  override name = 'ModelSpecError';
}

/** The forms `--model` accepts, for help and error messages. */
export const modelSpecForms = [
  'openai:gpt-4.1-mini',
  'anthropic:claude-sonnet-4-5',
  'ollama:qwen3',
  'openai-compatible:http://localhost:8000/v1#qwen3',
  'scripted:demo',
  'scripted:commands',
] as const;

/** The demo's spec. */
export const demoSpec = 'scripted:demo';

/** The spec of the scripted commands model (each user message is a command; see commands-script.ts). */
export const commandsSpec = 'scripted:commands';

/** Reads `--model`: the demo, or a spec for `createModel` (checked when the model is made). */
export function parseModelChoice(text: string): ModelChoice {
  const spec = text.trim();
  if (spec === demoSpec) return { kind: 'demo' };
  if (spec === commandsSpec) return { kind: 'commands' };
  if (spec.startsWith('scripted:')) {
    throw new ModelSpecError(
      `--model ${JSON.stringify(text)}: the scripted model has two scripts, "demo" and "commands".`,
    );
  }
  return { kind: 'model', spec };
}

/** The environment variables that hold API keys, with the model each one picks. */
export const keyDefaults = [
  { variable: 'OPENAI_API_KEY', spec: 'openai:gpt-4.1-mini' },
  { variable: 'ANTHROPIC_API_KEY', spec: 'anthropic:claude-sonnet-4-5' },
] as const;

/** The model to use when `--model` is not given: the first provider with a key, if any. */
export function defaultModelSpec(env: NodeJS.ProcessEnv): string | undefined {
  return keyDefaults.find(({ variable }) => (env[variable] ?? '').trim() !== '')?.spec;
}

/**
 * Builds a real model from a spec. A bad spec throws `InvalidModelSpecError`
 * (from `@parley/models`, code `invalid_model_spec`); credentials come from
 * the environment. The adapters and their SDKs load only here, so the demo
 * starts without them.
 */
export async function createChatModel(spec: string): Promise<ChatModel> {
  const { createModel } = await import('@parley/models');
  return createModel(spec);
}
