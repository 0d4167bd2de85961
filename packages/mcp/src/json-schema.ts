import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/client';
import { z } from 'zod';

const validators = new AjvJsonSchemaValidator();

/** A JSON object, as MCP tool arguments and form answers are. */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks `value` against a JSON Schema a server gave (tool input, form
 * schema); returns the problem, or undefined when it fits. A schema that
 * cannot be compiled is a problem too: nothing passes an unreadable schema.
 */
export function checkJsonSchema(schema: JsonObject, value: unknown): string | undefined {
  let validate;
  try {
    validate = validators.getValidator<unknown>(schemaOf(schema));
  } catch (error) {
    return `the server's JSON Schema cannot be used (${error instanceof Error ? error.message : String(error)})`;
  }
  const result = validate(value);
  return result.valid ? undefined : result.errorMessage;
}

/** A server's schema as the validator types it (an object schema is one). */
function schemaOf(schema: JsonObject): JsonSchemaType {
  return { ...schema };
}

/**
 * A zod type that accepts a JSON object fitting a server's JSON Schema, so
 * an MCP tool's input is validated before a call like any Parley tool's.
 * `schema` is read on every check: a refreshed tool list applies at once.
 */
export function jsonSchemaInput(schema: () => JsonObject): z.ZodType<JsonObject> {
  return z.custom<JsonObject>(isJsonObject, 'expected a JSON object').superRefine((value, ctx) => {
    const problem = checkJsonSchema(schema(), value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
