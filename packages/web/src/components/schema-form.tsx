import { Validator } from '@cfworker/json-schema';
import type { Schema } from '@cfworker/json-schema';
import { useId, useState } from 'react';
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

/** A field's value read back from its text; `undefined` leaves an optional field out. */
function valueOf(
  field: Field,
  draft: string,
): { ok: true; value: unknown } | { ok: false; problem: string } {
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
        : { ok: false, problem: `${field.name}: not a number` };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(draft) };
      } catch {
        return { ok: false, problem: `${field.name}: not valid JSON` };
      }
    default:
      return assertNever(field.kind);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected field kind ${String(value)}`);
}

/** Checks a value against the schema; returns the problems, none when it is valid. */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string[] {
  const schemaObject: Schema = { ...schema };
  const result = new Validator(schemaObject, '2020-12', false).validate(value);
  if (result.valid) return [];
  // The innermost errors name the property; the outer ones only repeat them.
  const located = result.errors.filter((error) => error.instanceLocation !== '#');
  const errors = located.length > 0 ? located : result.errors;
  return errors.map(
    (error) => `${error.instanceLocation.replace(/^#\/?/, '') || 'input'}: ${error.error}`,
  );
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
 * otherwise the problems are shown and focus stays in the form.
 */
export function SchemaForm({ schema, initial, submitLabel, onSubmit, onCancel }: SchemaFormProps) {
  const fields = fieldsOf(schema, initial);
  const [drafts, setDrafts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, draftOf(field, initial[field.name])])),
  );
  const [problems, setProblems] = useState<string[]>([]);
  const id = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value: Record<string, unknown> = {};
    const found: string[] = [];
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
    <form className="schema-form" onSubmit={submit} noValidate>
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`;
        const describedBy = field.description === undefined ? undefined : `${inputId}-description`;
        const draft = drafts[field.name] ?? '';
        const label = (
          <label htmlFor={inputId}>
            {field.name}
            {field.required ? '' : ' (optional)'}
          </label>
        );
        const description =
          field.description === undefined ? null : (
            <small id={describedBy}>{field.description}</small>
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
        <div role="alert">
          <ul className="problems">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
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
