import { z } from 'zod';
import type { PermissionRule } from '../message/index.js';
import type { PermissionDecision } from '../permission/index.js';
import { InvalidInputError } from '../errors/index.js';
import type { Tool, ToolDefinition } from './types.js';
import { assertValidToolName } from './tool-name.js';
import { describeZodIssues } from './validation.js';

const passthrough: PermissionDecision = { behavior: 'passthrough', message: '' };

/** The default suggestion: one rule naming the tool, allowing all its calls. */
export function toolNameRule(toolName: string): PermissionRule {
  return { toolName, ruleContent: null, behavior: 'allow', source: 'suggested' };
}

/**
 * Builds a tool from a zod-typed definition. Custom tools ask (passthrough)
 * until a rule allows them; `external: true` tools have no `execute`. A name
 * that does not match `TOOL_NAME_PATTERN` (`^[a-zA-Z0-9_-]{1,64}$`) throws
 * `InvalidToolNameError`.
 *
 * @example
 * const writeNote = tool({
 *   name: 'write_note',
 *   description: 'Write a note to the notebook.',
 *   input: z.object({ path: z.string(), content: z.string() }),
 *   execute: async ({ path }) => `Wrote ${path}`,
 * });
 */
export function tool<Schema extends z.ZodType>(
  definition: ToolDefinition<Schema>,
): Tool<z.output<Schema>> {
  type Input = z.output<Schema>;
  assertValidToolName(definition.name);
  const external = definition.external ?? false;
  if (!external && definition.execute === undefined) {
    throw new InvalidInputError(
      `Tool '${definition.name}' needs an execute function (or external: true).`,
    );
  }
  if (external && definition.execute !== undefined) {
    throw new InvalidInputError(
      `External tool '${definition.name}' must not have an execute function.`,
    );
  }
  let schemaCache: Record<string, unknown> | undefined;
  const metadataSchema = definition.outputMetadata;
  const built: Tool<Input> = {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.input as z.ZodType<Input>,
    external,
    idempotent: definition.idempotent ?? false,
    jsonSchema() {
      if (schemaCache === undefined) {
        // The dialect marker means nothing to model providers; some refuse it.
        const { $schema: _dialect, ...schema } = z.toJSONSchema(definition.input, {
          io: 'input',
          unrepresentable: 'any',
        });
        schemaCache = schema;
      }
      return schemaCache;
    },
    isReadOnly: () => definition.readOnly ?? false,
    isConcurrencySafe: () => definition.concurrencySafe ?? false,
    checkPermissions: (input, context) =>
      definition.checkPermissions ? definition.checkPermissions(input, context) : passthrough,
    matchRule: (ruleContent, input) =>
      ruleContent === null ? true : (definition.matchRule?.(ruleContent, input) ?? false),
    suggestRules: (input) =>
      definition.suggestRules ? definition.suggestRules(input) : [toolNameRule(definition.name)],
    checkResultMetadata: (input, metadata) => {
      if (metadataSchema !== undefined) {
        const parsed = metadataSchema.safeParse(metadata);
        if (!parsed.success) return describeZodIssues(parsed.error);
      }
      return definition.checkResult?.(input, metadata);
    },
  };
  if (definition.execute !== undefined) built.execute = definition.execute;
  return built;
}
