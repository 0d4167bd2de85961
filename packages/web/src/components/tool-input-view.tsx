import { DiffView } from './diff-view.js';

/** The parsed input of a call, or undefined when it is not a JSON object. */
export function inputObject(input: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(input);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return Object.fromEntries(Object.entries(value));
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value, null, 2);

/** Props of `ToolInputView`. */
export type ToolInputViewProps = { name: string; input: string };

/**
 * A call's input as a person reads it: a Bash command as code, a Write as
 * the new content (a diff against nothing: the browser cannot read the
 * file), an Edit as the diff of `old_string` to `new_string`, any other
 * tool as its fields and values.
 */
export function ToolInputView({ name, input }: ToolInputViewProps) {
  const fields = inputObject(input);
  if (fields === undefined) {
    return <pre className="tool-input">{input}</pre>;
  }
  if (name === 'Bash' && typeof fields['command'] === 'string') {
    return (
      <pre className="tool-input code" aria-label="Command">
        <code>{fields['command']}</code>
      </pre>
    );
  }
  if (name === 'Write' && typeof fields['content'] === 'string') {
    return <DiffView label={text(fields['file_path'])} before="" after={fields['content']} />;
  }
  if (
    name === 'Edit' &&
    typeof fields['old_string'] === 'string' &&
    typeof fields['new_string'] === 'string'
  ) {
    return (
      <DiffView
        label={text(fields['file_path'])}
        before={fields['old_string']}
        after={fields['new_string']}
      />
    );
  }
  return (
    <dl className="tool-fields">
      {Object.entries(fields).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <pre>{text(value)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A one-line summary of a call's input, for names and headings. */
export function inputSummary(name: string, input: string, room = 80): string {
  const fields = inputObject(input);
  const questions = Array.isArray(fields?.['questions']) ? fields['questions'] : undefined;
  const shown =
    fields === undefined
      ? input
      : name === 'Bash' && typeof fields['command'] === 'string'
        ? fields['command']
        : name === 'AskUser' && questions !== undefined
          ? questions
              .map((question: unknown) =>
                typeof question === 'object' && question !== null && 'question' in question
                  ? String(question.question)
                  : '',
              )
              .join(' ')
          : Object.entries(fields)
              .map(
                ([key, value]) =>
                  `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
              )
              .join(', ');
  const line = shown.replace(/\s+/g, ' ').trim();
  return line.length > room ? `${line.slice(0, room - 1)}…` : line;
}
