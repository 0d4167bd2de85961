import type { ChatModel } from '@parley/core';
import { importOptional, isConstructor, isRecord, isUnaryFunction } from './optional-import.js';

/**
 * Model specs (`--model`) and how they become a `ChatModel`. The adapters
 * live in `@parley/models`; this is the one module that knows how to reach
 * them, so switching to its `createModel` is a change here only.
 */

/** A parsed `--model` value. */
export type ModelSpec =
  | { provider: 'scripted'; script: 'demo' }
  | { provider: 'openai' | 'anthropic' | 'ollama'; model: string }
  | { provider: 'openai-compatible'; baseURL: string; model: string };

/** A `--model` value that cannot be used. */
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
] as const;

/** Parses `provider:model` (and `openai-compatible:URL#model`). */
export function parseModelSpec(text: string): ModelSpec {
  const colon = text.indexOf(':');
  const provider = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1).trim();
  const fail = (why: string): never => {
    throw new ModelSpecError(
      `--model ${JSON.stringify(text)}: ${why}. Use one of: ${modelSpecForms.join(', ')}.`,
    );
  };
  switch (provider) {
    case 'scripted':
      return rest === 'demo'
        ? { provider, script: 'demo' }
        : fail('the scripted model has one script, "demo"');
    case 'openai':
    case 'anthropic':
    case 'ollama':
      return rest === '' ? fail('the model name is missing') : { provider, model: rest };
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash < 0 ? '' : rest.slice(0, hash);
      const model = hash < 0 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\/\S+$/.test(baseURL) || model === '') {
        return fail('write it as openai-compatible:URL#model');
      }
      return { provider, baseURL, model };
    }
    default:
      return fail(`unknown provider ${JSON.stringify(provider)}`);
  }
}

/** The spec back as text (what `--model` would take). */
export function formatModelSpec(spec: ModelSpec): string {
  switch (spec.provider) {
    case 'scripted':
      return `scripted:${spec.script}`;
    case 'openai-compatible':
      return `openai-compatible:${spec.baseURL}#${spec.model}`;
    default:
      return `${spec.provider}:${spec.model}`;
  }
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

function isChatModel(value: unknown): value is ChatModel {
  return (
    isRecord(value) && typeof value['name'] === 'string' && typeof value['stream'] === 'function'
  );
}

const adapters = {
  openai: { module: '@parley/models/openai', exportName: 'OpenAIChatModel' },
  'openai-compatible': { module: '@parley/models/openai', exportName: 'OpenAIChatModel' },
  anthropic: { module: '@parley/models/anthropic', exportName: 'AnthropicChatModel' },
  ollama: { module: '@parley/models/ollama', exportName: 'OllamaChatModel' },
} as const;

/**
 * Builds a real model for a spec: `createModel(spec)` from `@parley/models`
 * when it exists, else the provider's adapter class. Throws ModelSpecError
 * when the adapter is not available in this build.
 */
export async function createChatModel(
  spec: Exclude<ModelSpec, { provider: 'scripted' }>,
): Promise<ChatModel> {
  const text = formatModelSpec(spec);
  const root = await importOptional('@parley/models');
  const create = root?.['createModel'];
  if (isUnaryFunction(create)) {
    const made: unknown = await Promise.resolve(create(text));
    if (isChatModel(made)) return made;
  }
  const adapter = adapters[spec.provider];
  const loaded = await importOptional(adapter.module);
  const Adapter = loaded?.[adapter.exportName];
  if (!isConstructor(Adapter)) {
    throw new ModelSpecError(
      `The ${spec.provider} adapter (${adapter.module}) is not available in this build. Try --model scripted:demo.`,
    );
  }
  const options =
    spec.provider === 'openai-compatible'
      ? { model: spec.model, baseURL: spec.baseURL }
      : { model: spec.model };
  const model: unknown = new Adapter(options);
  if (!isChatModel(model))
    throw new ModelSpecError(`${adapter.exportName} did not build a chat model.`);
  return model;
}
