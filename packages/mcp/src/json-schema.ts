import { Ajv } from 'ajv';
import type { Options, ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { RE2JS } from 're2js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { z } from 'zod';

/** A JSON object, as MCP tool arguments and form answers are. */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The longest string a server-supplied `pattern` is tested against; a
 * longer one fails the pattern. The engine is linear, this bounds the time.
 */
export const MAX_PATTERN_INPUT_CHARS = 100_000;

/**
 * The regular expression engine for server-supplied patterns (`pattern`,
 * `patternProperties`, `propertyNames`): RE2, which runs in time linear in
 * the input, so no pattern can block the process (`(a+)+$`). A pattern RE2
 * cannot read (look-around, back-references) makes the schema unusable.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    return {
      test: (input: string) => input.length <= MAX_PATTERN_INPUT_CHARS && compiled.test(input),
      // Ajv keys compiled patterns by this text.
      toString: () => `re2:${pattern}`,
    };
  },
  { code: 're2js' },
);

type Dialect = '2020-12' | '2019-09' | 'draft-07';

function dialectOf(schema: JsonObject): Dialect {
  const declared = schema['$schema'];
  if (declared === undefined) return '2020-12';
  if (typeof declared === 'string') {
    if (declared.includes('2020-12')) return '2020-12';
    if (declared.includes('2019-09')) return '2019-09';
    if (/draft-0[67]/.test(declared)) return 'draft-07';
  }
  throw new Error(`unsupported JSON Schema dialect ${JSON.stringify(declared)}`);
}

const engineOptions: Options = {
  strict: false,
  validateFormats: true,
  validateSchema: false,
  allErrors: true,
  // A schema's `$id` stays with that schema: one server cannot replace another's.
  addUsedSchema: false,
  logger: false,
  code: { regExp: linearRegExp },
};

/** Ajv engines by dialect, made on first use. One set per server (see `SchemaCompiler`). */
class Engines {
  private readonly made = new Map<Dialect, Ajv>();

  for(dialect: Dialect): Ajv {
    let engine = this.made.get(dialect);
    if (engine === undefined) {
      engine =
        dialect === '2020-12'
          ? new Ajv2020(engineOptions)
          : dialect === '2019-09'
            ? new Ajv2019(engineOptions)
            : new Ajv(engineOptions);
      for (const [name, format] of Object.entries(fullFormats)) engine.addFormat(name, format);
      this.made.set(dialect, engine);
    }
    return engine;
  }
}

/** A server's schema, compiled once: a check, or the reason it cannot be used. */
export type CompiledSchema =
  | { usable: true; check: (value: unknown) => string | undefined }
  | { usable: false; reason: string };

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function compileWith(engines: Engines, schema: JsonObject): CompiledSchema {
  let validate: ValidateFunction;
  let engine: Ajv;
  try {
    engine = engines.for(dialectOf(schema));
    validate = engine.compile(schema);
    // The function keeps what it needs; the engine keeps nothing per schema.
    engine.removeSchema(schema);
  } catch (error) {
    return { usable: false, reason: `JSON Schema cannot be used (${describe(error)})` };
  }
  return {
    usable: true,
    check(value) {
      try {
        return validate(value) ? undefined : engine.errorsText(validate.errors);
      } catch (error) {
        return `the JSON Schema could not be checked (${describe(error)})`;
      }
    },
  };
}

/**
 * Compiles the schemas of one server, each once (when its tool list
 * arrives). Each server has its own engines, so `$id`s of different
 * servers never meet; a new tool list gets a new compiler.
 */
export class SchemaCompiler {
  private readonly engines = new Engines();

  /** Compiles a schema; never throws (a `$ref` loop, a bad pattern: not usable, with the reason). */
  compile(schema: JsonObject): CompiledSchema {
    return compileWith(this.engines, schema);
  }
}

/**
 * The validator the MCP client uses for a server's output schemas (it
 * checks `structuredContent` against them): the same linear-time engine, so
 * a pattern in an output schema cannot block the process either. A schema
 * that cannot be compiled throws, which the client reports on that tool's
 * calls only.
 */
export function outputSchemaValidator(): jsonSchemaValidator {
  const compiler = new SchemaCompiler();
  return {
    getValidator<T>(schema: JsonObject): JsonSchemaValidator<T> {
      const compiled = compiler.compile({ ...schema });
      if (!compiled.usable) throw new Error(compiled.reason);
      let problem: string | undefined;
      const fits = (value: unknown): value is T => {
        problem = compiled.check(value);
        return problem === undefined;
      };
      return (input) =>
        fits(input)
          ? { valid: true, data: input, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: problem ?? 'does not fit the schema' };
    },
  };
}

/**
 * Checks `value` against a JSON Schema a server gave once (an elicitation
 * form); returns the problem, or undefined when it fits. A schema that
 * cannot be compiled is a problem too: nothing passes an unreadable schema.
 * The engines are made for this check and dropped with it.
 */
export function checkJsonSchema(schema: JsonObject, value: unknown): string | undefined {
  const compiled = new SchemaCompiler().compile(schema);
  if (!compiled.usable) return `the server's ${compiled.reason}`;
  return compiled.check(value);
}

/**
 * A zod type that accepts a JSON object fitting a server's compiled schema,
 * so an MCP tool's input is validated before a call like any Parley tool's.
 * `schema` is asked on every check: a refreshed tool list applies at once.
 */
export function jsonSchemaInput(schema: () => CompiledSchema): z.ZodType<JsonObject> {
  return z.custom<JsonObject>(isJsonObject, 'expected a JSON object').superRefine((value, ctx) => {
    const compiled = schema();
    const problem = compiled.usable
      ? compiled.check(value)
      : `the tool is unavailable: its ${compiled.reason}`;
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
