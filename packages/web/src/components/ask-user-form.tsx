import { askUserInputSchema } from '@parley/core';
import type { AskUserAnswer, AskUserInput } from '@parley/core';
import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Markdown } from './markdown.js';

/** The questions of an AskUser call's input, or undefined when the input is not valid. */
export function askUserQuestions(input: string): AskUserInput | undefined {
  try {
    const parsed = askUserInputSchema.safeParse(JSON.parse(input));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

type Question = AskUserInput['questions'][number];
type Draft = { selected: string[]; other: string };

/** Props of `AskUserForm`. */
export type AskUserFormProps = {
  input: AskUserInput;
  /** Disables the form while an answer is on its way. */
  busy?: boolean;
  onSubmit: (answers: AskUserAnswer[]) => void;
};

function QuestionFieldset({
  question,
  draft,
  onChange,
  focusFirst,
}: {
  question: Question;
  draft: Draft;
  onChange: (draft: Draft) => void;
  focusFirst: boolean;
}) {
  const id = useId();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusFirst) first.current?.focus();
  }, [focusFirst]);
  const multi = question.multiSelect === true;
  const withPreviews = !multi && question.options.some((option) => option.preview !== undefined);
  const shown =
    question.options.find((option) => draft.selected.includes(option.label)) ?? question.options[0];
  const toggle = (label: string, checked: boolean) => {
    const selected = multi
      ? checked
        ? [...draft.selected, label]
        : draft.selected.filter((chosen) => chosen !== label)
      : [label];
    onChange({ ...draft, selected });
  };
  const options = (
    <div className="options">
      {question.options.map((option, index) => {
        const optionId = `${id}-option-${index}`;
        return (
          <div key={option.label} className="option">
            <input
              ref={index === 0 ? first : undefined}
              id={optionId}
              type={multi ? 'checkbox' : 'radio'}
              name={id}
              value={option.label}
              checked={draft.selected.includes(option.label)}
              aria-describedby={`${optionId}-description`}
              onChange={(event) => toggle(option.label, event.target.checked)}
            />
            <label htmlFor={optionId}>{option.label}</label>
            <small id={`${optionId}-description`}>{option.description}</small>
          </div>
        );
      })}
      <div className="option other">
        <label htmlFor={`${id}-other`}>Other</label>
        <input
          id={`${id}-other`}
          type="text"
          value={draft.other}
          placeholder="Answer in your own words"
          onChange={(event) => onChange({ ...draft, other: event.target.value })}
        />
      </div>
    </div>
  );
  return (
    <div className="question">
      <span className="chip">{question.header}</span>
      <fieldset>
        <legend>{question.question}</legend>
        {question.context === undefined ? null : (
          <div className="question-context">
            <Markdown text={question.context} />
          </div>
        )}
        {withPreviews ? (
          <div className="with-preview">
            {options}
            <figure className="preview" aria-label={`Preview of ${shown?.label ?? ''}`}>
              <figcaption>{shown?.label}</figcaption>
              <pre tabIndex={0}>{shown?.preview ?? '(no preview)'}</pre>
            </figure>
          </div>
        ) : (
          options
        )}
      </fieldset>
    </div>
  );
}

/** The answers of the drafts, or the first question left unanswered. */
export function answersOf(
  input: AskUserInput,
  drafts: readonly Draft[],
): { answers: AskUserAnswer[] } | { missing: string } {
  const answers: AskUserAnswer[] = [];
  for (const [index, question] of input.questions.entries()) {
    const draft = drafts[index] ?? { selected: [], other: '' };
    const other = draft.other.trim();
    if (draft.selected.length === 0 && other === '') return { missing: question.question };
    answers.push({
      question: question.question,
      selected: question.options
        .map((option) => option.label)
        .filter((label) => draft.selected.includes(label)),
      other: other === '' ? null : other,
    });
  }
  return { answers };
}

/**
 * An AskUser call as a form: each question a group named by the question,
 * with its header chip, its context (markdown), its options (radio buttons,
 * or checkboxes for multi-select) with their descriptions, previews beside
 * the options of a single-select question (stacked on a narrow screen),
 * and an "Other" box. One "Send answers" sends all; Enter in a text box
 * sends too. Focus moves to the first question when the form appears.
 */
export function AskUserForm({ input, busy = false, onSubmit }: AskUserFormProps) {
  const [drafts, setDrafts] = useState<Draft[]>(() =>
    input.questions.map(() => ({ selected: [], other: '' })),
  );
  const [problem, setProblem] = useState<string | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = answersOf(input, drafts);
    if ('missing' in result) {
      setProblem(`Choose an option or write an answer for “${result.missing}”`);
      return;
    }
    setProblem(undefined);
    onSubmit(result.answers);
  };
  return (
    <form className="ask-user" onSubmit={submit}>
      {input.questions.map((question, index) => (
        <QuestionFieldset
          key={question.question}
          question={question}
          draft={drafts[index] ?? { selected: [], other: '' }}
          focusFirst={index === 0}
          onChange={(draft) =>
            setDrafts((current) => current.map((old, at) => (at === index ? draft : old)))
          }
        />
      ))}
      {problem === undefined ? null : (
        <p className="problem" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Send answers
        </button>
      </div>
    </form>
  );
}
