import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../errors/index.js';
import { decodeEvent, parseInputEvent } from './index.js';

// An independent description of the input event shapes, written from API.md
// rather than from the zod schemas, so the property below checks the schemas
// against the documented contract and not against themselves.
type Field =
  | { kind: 'string' | 'boolean' | 'nullableString' | 'metadata' | 'tag'; optional?: true }
  | { kind: 'enum'; values: string[]; optional?: true }
  | { kind: 'object'; shape: ShapeName; optional?: true }
  | { kind: 'array' | 'nullableArray' | 'stringOrBlocks'; item: ShapeName; optional?: true };
type Shape = Record<string, Field>;
type ShapeName =
  'confirmResult' | 'toolCall' | 'rule' | 'toolResult' | 'block' | 'text' | 'data' | 'source';

const common: Shape = {
  id: { kind: 'string', optional: true },
  createdAt: { kind: 'string', optional: true },
  metadata: { kind: 'metadata', optional: true },
  type: { kind: 'tag' },
  replyId: { kind: 'string' },
};
const eventShapes: Record<string, Shape> = {
  USER_CONFIRM_RESULT: { ...common, confirmResults: { kind: 'array', item: 'confirmResult' } },
  EXTERNAL_EXECUTION_RESULT: { ...common, executionResults: { kind: 'array', item: 'toolResult' } },
  USER_INTERRUPT: common,
};
const shapes: Record<Exclude<ShapeName, 'block' | 'source'>, Shape> = {
  confirmResult: {
    confirmed: { kind: 'boolean' },
    toolCall: { kind: 'object', shape: 'toolCall' },
    rules: { kind: 'nullableArray', item: 'rule', optional: true },
    reason: { kind: 'string', optional: true },
  },
  toolCall: {
    type: { kind: 'tag' },
    id: { kind: 'string' },
    name: { kind: 'string' },
    input: { kind: 'string' },
    state: { kind: 'enum', values: ['pending', 'asking', 'allowed', 'submitted', 'finished'] },
    suggestedRules: { kind: 'array', item: 'rule' },
  },
  rule: {
    toolName: { kind: 'string' },
    ruleContent: { kind: 'nullableString' },
    behavior: { kind: 'enum', values: ['allow', 'deny', 'ask'] },
    source: { kind: 'string' },
  },
  toolResult: {
    type: { kind: 'tag' },
    id: { kind: 'string' },
    name: { kind: 'string' },
    output: { kind: 'stringOrBlocks', item: 'block' },
    state: { kind: 'enum', values: ['success', 'error', 'interrupted', 'denied', 'running'] },
    metadata: { kind: 'metadata', optional: true },
  },
  text: { type: { kind: 'tag' }, text: { kind: 'string' }, id: { kind: 'string', optional: true } },
  data: {
    type: { kind: 'tag' },
    id: { kind: 'string', optional: true },
    name: { kind: 'string', optional: true },
    source: { kind: 'object', shape: 'source' },
  },
};

/** The shape of an object found where `name` is expected (unions resolved by the value's tag). */
function shapeOf(name: ShapeName, value: Record<string, unknown>): Shape {
  if (name === 'block') return value['type'] === 'text' ? shapes.text : shapes.data;
  if (name === 'source') {
    const specific: Field = { kind: 'string' };
    return value['type'] === 'url'
      ? { type: { kind: 'tag' }, url: specific, mediaType: { kind: 'string' } }
      : { type: { kind: 'tag' }, data: specific, mediaType: { kind: 'string' } };
  }
  return shapes[name];
}

// ---- valid input events ----------------------------------------------------

const text = fc.string({ maxLength: 12 });
// A "__proto__" key of metadata is refused (see codec-errors.test.ts), so valid events have none.
const json = fc.dictionary(
  text.filter((key) => key !== '__proto__'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const rule = fc.record({
  toolName: text,
  ruleContent: fc.option(text),
  behavior: fc.constantFrom('allow', 'deny', 'ask'),
  source: text,
});
const toolCall = fc.record({
  type: fc.constant('tool_call'),
  id: text,
  name: text,
  input: fc.json(),
  state: fc.constantFrom('pending', 'asking', 'allowed', 'submitted', 'finished'),
  suggestedRules: fc.array(rule, { maxLength: 2 }),
});
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text, id: text }, { requiredKeys: ['type', 'text'] }),
  fc.record(
    {
      type: fc.constant('data'),
      id: text,
      name: text,
      source: fc.oneof(
        fc.record({ type: fc.constant('base64'), data: fc.base64String(), mediaType: text }),
        fc.record({ type: fc.constant('url'), url: fc.webUrl(), mediaType: text }),
      ),
    },
    { requiredKeys: ['type', 'source'] },
  ),
);
const toolResult = fc.record(
  {
    type: fc.constant('tool_result'),
    id: text,
    name: text,
    output: fc.oneof(text, fc.array(block, { maxLength: 3 })),
    state: fc.constantFrom('success', 'error', 'interrupted', 'denied', 'running'),
    metadata: json,
  },
  { requiredKeys: ['type', 'id', 'name', 'output', 'state'] },
);
const confirmResult = fc.record(
  {
    confirmed: fc.boolean(),
    toolCall,
    rules: fc.option(fc.array(rule, { maxLength: 2 })),
    reason: text,
  },
  { requiredKeys: ['confirmed', 'toolCall'] },
);
const stamp = {
  id: optional(text),
  createdAt: optional(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
};
const withoutUndefined = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
const validInputEvent: fc.Arbitrary<Record<string, unknown>> = fc
  .oneof(
    fc.record({
      ...stamp,
      metadata: optional(json),
      type: fc.constant('USER_CONFIRM_RESULT'),
      replyId: text,
      confirmResults: fc.array(confirmResult, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      ...stamp,
      metadata: optional(json),
      type: fc.constant('EXTERNAL_EXECUTION_RESULT'),
      replyId: text,
      executionResults: fc.array(toolResult, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      ...stamp,
      metadata: optional(json),
      type: fc.constant('USER_INTERRUPT'),
      replyId: text,
    }),
  )
  .map(withoutUndefined);

// ---- mutations ---------------------------------------------------------------

type Path = (string | number)[];
/** One way to break a valid event, and the path the error must name. */
type Mutation = { what: string; path: Path; expectedPath: string; apply: (event: unknown) => void };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value of a kind the field never accepts. */
function wrongKind(field: Field): unknown {
  switch (field.kind) {
    case 'boolean':
      return 'true';
    case 'metadata':
      return ['not', 'an', 'object'];
    case 'object':
      return 'not an object';
    default:
      return 42;
  }
}

function at(root: unknown, path: Path): Record<string, unknown> {
  let value = root;
  for (const key of path)
    value = isRecord(value) ? value[key] : Array.isArray(value) ? value[Number(key)] : undefined;
  if (!isRecord(value)) throw new Error(`no object at ${path.join('.')}`);
  return value;
}

/** Every mutation of `object` (at `path`, of `shape`) and of the objects inside it. */
function mutations(object: Record<string, unknown>, shape: Shape, path: Path): Mutation[] {
  const found: Mutation[] = [];
  const dotted = (key: string | number) => [...path, key].join('.');
  found.push({
    what: 'extra key',
    path,
    expectedPath: dotted('unexpectedKey'),
    apply: (root) => void (at(root, path)['unexpectedKey'] = 'surprise'),
  });
  for (const [key, field] of Object.entries(shape)) {
    const present = key in object;
    if (present && field.optional !== true) {
      found.push({
        what: `drop ${key}`,
        path,
        expectedPath: dotted(key),
        apply: (root) => void delete at(root, path)[key],
      });
    }
    found.push({
      what: `wrong type for ${key}`,
      path,
      expectedPath: dotted(key),
      apply: (root) => void (at(root, path)[key] = wrongKind(field)),
    });
    if (field.kind === 'enum' || field.kind === 'tag') {
      found.push({
        what: `wrong enum for ${key}`,
        path,
        expectedPath: dotted(key),
        apply: (root) => void (at(root, path)[key] = 'NOT_A_VALUE'),
      });
    }
    const value = object[key];
    if (field.kind === 'object' && isRecord(value)) {
      found.push(...mutations(value, shapeOf(field.shape, value), [...path, key]));
    }
    if (
      (field.kind === 'array' ||
        field.kind === 'nullableArray' ||
        field.kind === 'stringOrBlocks') &&
      Array.isArray(value)
    ) {
      value.forEach((item, index) => {
        if (isRecord(item))
          found.push(...mutations(item, shapeOf(field.item, item), [...path, key, index]));
      });
    }
  }
  return found;
}

const mutatedEvent = validInputEvent.chain((event) => {
  const all = mutations(event, eventShapes[String(event['type'])] ?? {}, []);
  return fc.constantFrom(...all).map((mutation) => ({ event, mutation }));
});

/** What `run` threw, or undefined. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('input event codec: properties', () => {
  it('accepts every valid input event, as an object and as JSON text', () => {
    fc.assert(
      fc.property(validInputEvent, (event) => {
        expect(parseInputEvent(event)).toEqual(event);
        const text = JSON.stringify(event);
        // Compared with the JSON round trip: JSON has no -0, so `-0` comes back as `0`.
        expect(decodeEvent(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every mutated input event with InvalidEventError naming the mutated field', () => {
    fc.assert(
      fc.property(mutatedEvent, ({ event, mutation }) => {
        const broken = structuredClone(event);
        mutation.apply(broken);
        const error = thrown(() => parseInputEvent(broken));
        expect(error, mutation.what).toBeInstanceOf(InvalidEventError);
        if (error instanceof InvalidEventError)
          expect(error.path, mutation.what).toBe(mutation.expectedPath);
        const fromText = thrown(() => parseInputEvent(JSON.stringify(broken)));
        expect(fromText, mutation.what).toBeInstanceOf(InvalidEventError);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws anything but InvalidEventError, whatever it is given', () => {
    const anything = fc.oneof(
      fc.anything(),
      fc.json(),
      fc.string(),
      validInputEvent.map((e) => JSON.stringify(e).slice(0, -1)),
    );
    fc.assert(
      fc.property(anything, (value) => {
        const error = thrown(() => parseInputEvent(value));
        if (error !== undefined) expect(error).toBeInstanceOf(InvalidEventError);
        const decodeError = thrown(() => decodeEvent(value));
        if (decodeError !== undefined) expect(decodeError).toBeInstanceOf(InvalidEventError);
      }),
      { numRuns: 1000 },
    );
  });
});
