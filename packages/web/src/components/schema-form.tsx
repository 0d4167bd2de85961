import { Validator } from '@cfworker/json-schema';
import type { OutputUnit, Schema } from '@cfworker/json-schema';
import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';

/** A field of the form: one property of the tool's input schema. */
type Field = {
  name: string;
  kind: 'text' | 'multiline' | 'number' | 'integer' | 'boolean' | 'choice' | 'json';
  required: boolean;
  description?: string;
  choices?: string[];
};

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value))
    : {};

/** The fields of an object schema's properties, in their order. */
export function fieldsOf(
  schema: Record<string, unknown>,
  initial: Record<string, unknown>,
): Field[] {
  const properties = record(schema['properties']);
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  return Object.entries(properties).map(([name, raw]) => {
    const property = record(raw);
    const description =
      typeof property['description'] === 'string' ? property['description'] : undefined;
    const base = {
      name,
      required: required.includes(name),
      ...(description === undefined ? {} : { description }),
    };
    const choices = Array.isArray(property['enum'])
      ? property['enum'].filter((choice): choice is string => typeof choice === 'string')
      : undefined;
    if (choices !== undefined && choices.length > 0) return { ...base, kind: 'choice', choices };
    switch (property['type']) {
      case 'string': {
        const value = initial[name];
        const long = typeof value === 'string' && (value.includes('\n') || value.length > 60);
        return { ...base, kind: long ? 'multiline' : 'text' };
      }
      case 'number':
        return { ...base, kind: 'number' };
      case 'integer':
        return { ...base, kind: 'integer' };
      case 'boolean':
        return { ...base, kind: 'boolean' };
      default:
        return { ...base, kind: 'json' };
    }
  });
}

/** The text a field's input starts with. */
function draftOf(field: Field, value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (field.kind !== 'json' && (typeof value === 'number' || typeof value === 'boolean')) {
    return String(value);
  }
  return JSON.stringify(value, null, 2);
}

/**
 * A problem with the edited input, in words a person can act on, and the
 * field it is about (`''` when it is about the whole input).
 */
export type FieldProblem = { field: string; message: string };

/** A field's value read back from its text; `undefined` leaves an optional field out. */
function valueOf(
  field: Field,
  draft: string,
): { ok: true; value: unknown } | { ok: false; problem: FieldProblem } {
  if (
    draft === '' &&
    field.kind !== 'text' &&
    field.kind !== 'multiline' &&
    field.kind !== 'boolean'
  ) {
    return { ok: true, value: undefined };
  }
  switch (field.kind) {
    case 'text':
    case 'multiline':
    case 'choice':
      return { ok: true, value: draft };
    case 'boolean':
      return { ok: true, value: draft === 'true' };
    case 'number':
    case 'integer': {
      const number = Number(draft);
      return Number.isFinite(number)
        ? { ok: true, value: number }
        : {
            ok: false,
            problem: { field: field.name, message: 'Not a number: type digits, e.g. 3.' },
          };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(draft) };
      } catch {
        return {
          ok: false,
          problem: {
            field: field.name,
            message: 'Not valid JSON: check the brackets, quotes and commas.',
          },
        };
      }
    default:
      return assertNever(field.kind);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected field kind ${String(value)}`);
}

const typeWords: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'empty (null)',
};

/** Errors that only say a part of the value failed; the part's own error says how. */
const containers = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'allOf',
  '$ref',
]);

/** The schema of the value at `keywordLocation`'s parent (where the failed keyword sits). */
function keywordSchema(schema: Record<string, unknown>, keywordLocation: string): unknown {
  const parts = keywordLocation.replace(/^#\/?/, '').split('/').filter(Boolean);
  let at: unknown = schema;
  for (const part of parts)
    at = record(at)[decodeURIComponent(part.replaceAll('~1', '/').replaceAll('~0', '~'))];
  return at;
}

/** One validator error in words, e.g. "Fill this in: it cannot be empty.". */
function inWords(error: OutputUnit, schema: Record<string, unknown>): string {
  const limit = keywordSchema(schema, error.keywordLocation);
  const n = typeof limit === 'number' ? limit : undefined;
  switch (error.keyword) {
    case 'required':
      return 'Fill this in: it is required.';
    case 'minLength':
      return n === 1
        ? 'Fill this in: it cannot be empty.'
        : `Too short: at least ${n ?? '?'} characters.`;
    case 'maxLength':
      return `Too long: at most ${n ?? '?'} characters.`;
    case 'minimum':
      return `Too small: at least ${n ?? '?'}.`;
    case 'exclusiveMinimum':
      return `Too small: more than ${n ?? '?'}.`;
    case 'maximum':
      return `Too large: at most ${n ?? '?'}.`;
    case 'exclusiveMaximum':
      return `Too large: less than ${n ?? '?'}.`;
    case 'multipleOf':
      return `Must be a multiple of ${n ?? '?'}.`;
    case 'minItems':
      return `Too few: at least ${n ?? '?'} items.`;
    case 'maxItems':
      return `Too many: at most ${n ?? '?'} items.`;
    case 'uniqueItems':
      return 'Each item must be different.';
    case 'enum':
    case 'const': {
      const choices = Array.isArray(limit) ? limit : [limit];
      return `Choose one of: ${choices.map((choice) => (typeof choice === 'string' ? choice : JSON.stringify(choice))).join(', ')}.`;
    }
    case 'type': {
      const [, expected] = /Expected "([a-z]+)"/.exec(error.error) ?? [];
      return `Must be ${typeWords[expected ?? ''] ?? expected ?? 'of another type'}.`;
    }
    case 'pattern':
      return typeof limit === 'string'
        ? `Not in the expected form (it must match ${limit}).`
        : 'Not in the expected form.';
    case 'format':
      return `Not a valid ${typeof limit === 'string' ? limit : 'value'}.`;
    case 'false':
      return 'This field is not allowed here.';
    default:
      return error.error;
  }
}

/**
 * Checks a value against the schema; returns the problems in words, each
 * with the field it is about, none when the value is valid.
 */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): FieldProblem[] {
  const schemaObject: Schema = { ...schema };
  const result = new Validator(schemaObject, '2020-12', false).validate(value);
  if (result.valid) return [];
  // The innermost errors say how a field failed; the outer ones only repeat that it did.
  const own = result.errors.filter((error) => !containers.has(error.keyword));
  const errors = own.length > 0 ? own : result.errors;
  const problems = errors.map((error): FieldProblem => {
    const [field = '', ...rest] = error.instanceLocation.replace(/^#\/?/, '').split('/');
    const [, missing] = /required property "(.+)"/.exec(error.error) ?? [];
    const where =
      rest.length === 0
        ? ''
        : `${rest.map((part) => (/^\d+$/.test(part) ? `item ${Number(part) + 1}` : part)).join(', ')}: `;
    return {
      field: error.keyword === 'required' && missing !== undefined ? missing : field,
      message: where + inWords(error, schema),
    };
  });
  // One problem a field is enough to act on; the first is the most basic.
  return problems.filter(
    (problem, index) =>
      problem.field === '' ||
      problems.findIndex((other) => other.field === problem.field) === index,
  );
}

/** What the alert under the form says: which fields to fix, and any problem of the whole input. */
function summaryOf(problems: readonly FieldProblem[], fields: readonly Field[]): string {
  const names = new Set(fields.map((field) => field.name));
  const marked = problems.filter((problem) => names.has(problem.field));
  const other = problems
    .filter((problem) => !names.has(problem.field))
    .map((problem) =>
      problem.field === '' ? problem.message : `${problem.field}: ${problem.message}`,
    );
  const fix =
    marked.length === 0
      ? []
      : [
          `Fix ${marked.length === 1 ? 'this field' : `these ${marked.length} fields`} before sending: ${marked
            .map((problem) => problem.field)
            .join(', ')}.`,
        ];
  return [...fix, ...other].join(' ');
}

/** Props of `SchemaForm`. */
export type SchemaFormProps = {
  /** The tool's input JSON Schema (an object schema). */
  schema: Record<string, unknown>;
  /** The input to start from (the call's). */
  initial: Record<string, unknown>;
  submitLabel: string;
  onSubmit: (value: Record<string, unknown>) => void;
  onCancel: () => void;
};

/**
 * A form generated from a tool's input JSON Schema: a text box per string
 * (a multi-line one for long text), a number box, a checkbox, a select for
 * an enum, and JSON for anything nested. On submit the value is checked
 * against the schema (@cfworker/json-schema) and sent only when it passes;
 * otherwise each problem is shown in words under its field (described by
 * it, marked invalid), an alert names the fields, and the first takes the
 * focus.
 */
export function SchemaForm({ schema, initial, submitLabel, onSubmit, onCancel }: SchemaFormProps) {
  const fields = fieldsOf(schema, initial);
  const [drafts, setDrafts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, draftOf(field, initial[field.name])])),
  );
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  // After a refused submit, the first field with a problem takes the focus.
  useEffect(() => {
    if (problems.length > 0)
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [problems]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value: Record<string, unknown> = {};
    const found: FieldProblem[] = [];
    for (const field of fields) {
      const read = valueOf(field, drafts[field.name] ?? '');
      if (!read.ok) found.push(read.problem);
      else if (read.value !== undefined) value[field.name] = read.value;
    }
    const all = found.length > 0 ? found : schemaProblems(schema, value);
    setProblems(all);
    if (all.length === 0) onSubmit(value);
  };

  const set = (name: string, draft: string) =>
    setDrafts((current) => ({ ...current, [name]: draft }));

  return (
    <form ref={form} className="schema-form" onSubmit={submit} noValidate>
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`;
        const problem = problems.find((found) => found.field === field.name);
        const describedBy =
          [
            field.description === undefined ? '' : `${inputId}-description`,
            problem === undefined ? '' : `${inputId}-problem`,
          ]
            .filter(Boolean)
            .join(' ') || undefined;
        const invalid = problem === undefined ? undefined : true;
        const draft = drafts[field.name] ?? '';
        const label = (
          <label htmlFor={inputId}>
            {field.name}
            {field.required ? '' : ' (optional)'}
          </label>
        );
        const description = (
          <>
            {field.description === undefined ? null : (
              <small id={`${inputId}-description`}>{field.description}</small>
            )}
            {problem === undefined ? null : (
              <p id={`${inputId}-problem`} className="problem field-problem">
                {problem.message}
              </p>
            )}
          </>
        );
        switch (field.kind) {
          case 'boolean':
            return (
              <div key={field.name} className="field field-check">
                <input
                  id={inputId}
                  type="checkbox"
                  checked={draft === 'true'}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onChange={(event) => set(field.name, String(event.target.checked))}
                />
                {label}
                {description}
              </div>
            );
          case 'choice':
            return (
              <div key={field.name} className="field">
                {label}
                <select
                  id={inputId}
                  value={draft}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onChange={(event) => set(field.name, event.target.value)}
                >
                  {field.required ? null : <option value="">(none)</option>}
                  {(field.choices ?? []).map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
                {description}
              </div>
            );
          case 'multiline':
          case 'json':
            return (
              <div key={field.name} className="field">
                {label}
                <textarea
                  id={inputId}
                  value={draft}
                  rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onChange={(event) => set(field.name, event.target.value)}
                />
                {description}
              </div>
            );
          case 'text':
          case 'number':
          case 'integer':
            return (
              <div key={field.name} className="field">
                {label}
                <input
                  id={inputId}
                  type={field.kind === 'text' ? 'text' : 'number'}
                  value={draft}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onChange={(event) => set(field.name, event.target.value)}
                />
                {description}
              </div>
            );
          default:
            return assertNever(field.kind);
        }
      })}
      {problems.length > 0 ? (
        <div role="alert" className="problems">
          {summaryOf(problems, fields)}
        </div>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary">
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
