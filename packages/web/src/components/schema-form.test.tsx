// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaForm, fieldsOf, schemaProblems } from './schema-form.js';

afterEach(cleanup);

// What z.toJSONSchema makes of a tool's input (core's tool.jsonSchema()).
const schema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, description: 'Where the note goes' },
    content: { type: 'string' },
    environment: { type: 'string', enum: ['staging', 'production'] },
    replicas: { type: 'integer', minimum: 1 },
    force: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['path', 'content', 'environment'],
  additionalProperties: false,
};

function renderForm(initial: Record<string, unknown>) {
  const sent: Record<string, unknown>[] = [];
  let cancelled = 0;
  render(
    <SchemaForm
      schema={schema}
      initial={initial}
      submitLabel="Allow edited"
      onSubmit={(value) => sent.push(value)}
      onCancel={() => (cancelled += 1)}
    />,
  );
  return { sent, cancelled: () => cancelled };
}

describe('SchemaForm', () => {
  it('makes a control per property: text, multi-line text, a select for an enum, a number, a checkbox, JSON for the rest', () => {
    renderForm({
      path: 'a.md',
      content: 'line one\nline two',
      environment: 'staging',
      tags: ['x'],
    });
    expect(screen.getByRole('textbox', { name: 'path' }).tagName).toBe('INPUT');
    expect(screen.getByRole('textbox', { name: 'content' }).tagName).toBe('TEXTAREA');
    expect(screen.getByRole('combobox', { name: 'environment' })).toBeTruthy();
    expect(screen.getByRole('spinbutton', { name: 'replicas (optional)' })).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: 'force (optional)' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'tags (optional)' })).toHaveProperty(
      'value',
      '[\n  "x"\n]',
    );
    expect(screen.getByText('Where the note goes')).toBeTruthy();
  });

  it('sends the edited value only once it passes the schema', async () => {
    const { sent } = renderForm({ path: 'a.md', content: 'hi', environment: 'staging' });
    await userEvent.clear(screen.getByRole('textbox', { name: 'path' }));
    await userEvent.type(screen.getByRole('spinbutton', { name: 'replicas (optional)' }), '0');
    await userEvent.click(screen.getByRole('button', { name: 'Allow edited' }));
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Fix these 2 fields before sending: path, replicas.');
    // Each problem in words, next to its field, which it describes; the first takes the focus.
    const path = screen.getByRole('textbox', { name: 'path' });
    expect(path.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Fill this in: it cannot be empty.').id).toBe(
      path.getAttribute('aria-describedby')?.split(' ').at(-1),
    );
    expect(path.parentElement?.textContent).toContain('Fill this in: it cannot be empty.');
    const replicas = screen.getByRole('spinbutton', { name: 'replicas (optional)' });
    expect(replicas.parentElement?.textContent).toContain('Too small: at least 1.');
    expect(document.activeElement).toBe(path);
    expect(sent).toEqual([]);

    await userEvent.type(screen.getByRole('textbox', { name: 'path' }), 'b.md');
    await userEvent.clear(screen.getByRole('spinbutton', { name: 'replicas (optional)' }));
    await userEvent.type(screen.getByRole('spinbutton', { name: 'replicas (optional)' }), '3');
    await userEvent.selectOptions(
      screen.getByRole('combobox', { name: 'environment' }),
      'production',
    );
    await userEvent.click(screen.getByRole('checkbox', { name: 'force (optional)' }));
    await userEvent.click(screen.getByRole('button', { name: 'Allow edited' }));
    expect(sent).toEqual([
      { path: 'b.md', content: 'hi', environment: 'production', replicas: 3, force: true },
    ]);
  });

  it('refuses JSON that does not parse, before the schema is asked', async () => {
    const { sent } = renderForm({ path: 'a.md', content: 'hi', environment: 'staging' });
    await userEvent.type(screen.getByRole('textbox', { name: 'tags (optional)' }), '[[oops');
    await userEvent.click(screen.getByRole('button', { name: 'Allow edited' }));
    expect(screen.getByRole('alert').textContent).toBe('Fix this field before sending: tags.');
    expect(screen.getByText('Not valid JSON: check the brackets, quotes and commas.')).toBeTruthy();
    expect(sent).toEqual([]);
  });
});

describe('fieldsOf and schemaProblems', () => {
  it('marks required fields and finds nothing wrong with a valid value', () => {
    expect(
      fieldsOf(schema, {})
        .filter((field) => field.required)
        .map((field) => field.name),
    ).toEqual(['path', 'content', 'environment']);
    expect(schemaProblems(schema, { path: 'a', content: '', environment: 'staging' })).toEqual([]);
    expect(schemaProblems(schema, { path: 'a', content: '', environment: 'moon' })).toEqual([
      { field: 'environment', message: 'Choose one of: staging, production.' },
    ]);
    expect(
      schemaProblems(schema, { path: 'a', environment: 'staging', replicas: 1.5, tags: [3], x: 1 }),
    ).toEqual([
      { field: 'content', message: 'Fill this in: it is required.' },
      { field: 'replicas', message: 'Must be a whole number.' },
      { field: 'tags', message: 'item 1: Must be text.' },
      { field: 'x', message: 'This field is not allowed here.' },
    ]);
  });
});
