import { checkbox, input } from '@inquirer/prompts';
import { askUserInputSchema } from '@parley/core';
import type { AskUserAnswer, AskUserInput, ToolCallBlock } from '@parley/core';
import { chip, parseJson, truncate } from './format.js';
import { inert } from './inert.js';
import type { PickerOption } from './option-layout.js';
import { optionPicker } from './option-picker.js';
import type { Screen } from './renderer.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** One question of an AskUser call. */
export type AskUserQuestion = AskUserInput['questions'][number];

/** The free-text choice every question offers, after the model's options. */
export const otherOption: PickerOption = { label: 'Other…', description: 'type your own answer' };

/** The questions of an AskUser call, or undefined when its input is not a valid AskUser input. */
export function askUserQuestions(toolCall: ToolCallBlock): AskUserQuestion[] | undefined {
  const parsed = askUserInputSchema.safeParse(parseJson(toolCall.input));
  return parsed.success ? parsed.data.questions : undefined;
}

/**
 * What is shown above a question's prompt: the header as a chip (with
 * "n of m" when there are several questions), then the context, if any.
 */
export function formatQuestionIntro(
  question: AskUserQuestion,
  position: { index: number; total: number },
  colors: Colors,
  width: number,
): string {
  const counter =
    position.total > 1 ? colors.dim(`  ${position.index + 1} of ${position.total}`) : '';
  const kind = question.multiSelect === true ? colors.dim('  (choose any)') : '';
  const lines = [`${chip(inert(question.header), colors)}${counter}${kind}`];
  if (question.context !== undefined && question.context.trim() !== '') {
    const room = Math.max(8, width - 2);
    for (const line of inert(question.context.replace(/\s+$/, '')).split('\n')) {
      lines.push(`${colors.dim(glyphs.bar)} ${truncate(line, room)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The answer for a question from the chosen option labels and the "Other" text. */
export function answerOf(
  question: AskUserQuestion,
  selected: string[],
  other: string | null,
): AskUserAnswer {
  const text = other?.trim() ?? '';
  return { question: question.question, selected, other: text === '' ? null : text };
}

/** Dependencies of the AskUser prompt. */
export type AskUserPromptOptions = { screen: Screen; colors: Colors };

async function askOther(): Promise<string> {
  return input({ message: 'Your answer:', required: true });
}

async function askSingle(
  question: AskUserQuestion,
  options: AskUserPromptOptions,
): Promise<AskUserAnswer> {
  const choices: PickerOption[] = [
    ...question.options.map((option) => ({
      label: inert(option.label),
      description: inert(option.description),
      ...(option.preview === undefined ? {} : { preview: inert(option.preview) }),
    })),
    otherOption,
  ];
  const index = await optionPicker({
    message: inert(question.question),
    options: choices,
    colors: options.colors,
    columns: () => options.screen.columns(),
  });
  const chosen = question.options[index];
  if (chosen === undefined) return answerOf(question, [], await askOther());
  return answerOf(question, [chosen.label], null);
}

async function askMany(
  question: AskUserQuestion,
  options: AskUserPromptOptions,
): Promise<AskUserAnswer> {
  const { colors } = options;
  const other = -1;
  const labelWidth = Math.max(
    otherOption.label.length,
    ...question.options.map((option) => inert(option.label).length),
  );
  const name = (label: string, description: string): string =>
    description === ''
      ? inert(label)
      : `${inert(label).padEnd(labelWidth)}  ${colors.dim(inert(description))}`;
  const picked = await checkbox<number>({
    message: inert(question.question),
    required: true,
    choices: [
      ...question.options.map((option, index) => ({
        value: index,
        name: name(option.label, option.description),
        short: inert(option.label),
      })),
      {
        value: other,
        name: name(otherOption.label, otherOption.description),
        short: 'Other',
      },
    ],
  });
  const labels = picked.flatMap((index) => {
    const option = question.options[index];
    return option === undefined ? [] : [option.label];
  });
  return answerOf(question, labels, picked.includes(other) ? await askOther() : null);
}

/**
 * Asks every question of an AskUser call, one after another: the header as
 * a chip, the context above the options, single- or multi-select, previews
 * beside (or below) the options, and always an "Other" free-text answer.
 * Throws inquirer's ExitPromptError on Ctrl-C.
 */
export async function promptAskUser(
  questions: AskUserQuestion[],
  options: AskUserPromptOptions,
): Promise<AskUserAnswer[]> {
  const answers: AskUserAnswer[] = [];
  for (const [index, question] of questions.entries()) {
    const intro = formatQuestionIntro(
      question,
      { index, total: questions.length },
      options.colors,
      options.screen.columns(),
    );
    options.screen.write(`\n${intro}`);
    answers.push(
      question.multiSelect === true
        ? await askMany(question, options)
        : await askSingle(question, options),
    );
  }
  return answers;
}
