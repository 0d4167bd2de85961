import { z } from 'zod';
import type { ToolCallBlock, ToolResultBlock } from '../message/index.js';
import { InvalidInputError } from '../errors/index.js';
import { tool } from './tool.js';
import { describeZodIssues, parseToolInput } from './validation.js';

const optionSchema = z
  .object({
    label: z.string().min(1).describe('The option text the user picks (1-5 words).'),
    description: z.string().describe('What choosing this option means, or its trade-off.'),
    preview: z
      .string()
      .optional()
      .describe('Optional content shown beside the option (code, a mockup). Single-select only.'),
  })
  .strict();

const questionSchema = z
  .object({
    question: z.string().min(1).describe('The complete question, ending with a question mark.'),
    header: z
      .string()
      .min(1)
      .max(12)
      .describe('A short label shown as a chip (at most 12 characters).'),
    context: z
      .string()
      .optional()
      .describe(
        'What the user must look at to answer: a draft, a diff, an error. Shown above the options.',
      ),
    options: z.array(optionSchema).min(2).max(4).describe('2 to 4 distinct choices.'),
    multiSelect: z.boolean().optional().describe('Allow choosing more than one option.'),
  })
  .strict()
  .superRefine((question, ctx) => {
    const labels = new Set<string>();
    question.options.forEach((option, index) => {
      if (labels.has(option.label)) {
        ctx.addIssue({
          code: 'custom',
          path: ['options', index, 'label'],
          message: `Duplicate option label '${option.label}'`,
        });
      }
      labels.add(option.label);
      if (option.preview !== undefined && question.multiSelect === true) {
        ctx.addIssue({
          code: 'custom',
          path: ['options', index, 'preview'],
          message: 'Previews are only allowed on single-select questions',
        });
      }
    });
  });

/** The input schema of `AskUser`: 1-4 questions, each with 2-4 options. */
export const askUserInputSchema = z
  .object({
    questions: z.array(questionSchema).min(1).max(4).describe('1 to 4 related questions.'),
  })
  .strict()
  .superRefine((input, ctx) => {
    const texts = new Set<string>();
    input.questions.forEach((question, index) => {
      if (texts.has(question.question)) {
        ctx.addIssue({
          code: 'custom',
          path: ['questions', index, 'question'],
          message: 'Duplicate question text',
        });
      }
      texts.add(question.question);
    });
  });

/** One answer: the labels chosen and/or the free text typed under "Other". */
export const askUserAnswerSchema = z
  .object({ question: z.string(), selected: z.array(z.string()), other: z.string().nullable() })
  .strict();

/** The metadata of an `AskUser` result, for programs to branch on. */
export const askUserMetadataSchema = z.object({ answers: z.array(askUserAnswerSchema) }).strict();

/** The input of an `AskUser` call: the questions, each with its options. */
export type AskUserInput = z.output<typeof askUserInputSchema>;
/** One answer of an `AskUser` result: the labels chosen and/or the "Other" text. */
export type AskUserAnswer = z.output<typeof askUserAnswerSchema>;
/** The metadata of an `AskUser` result: one answer per question. */
export type AskUserMetadata = z.output<typeof askUserMetadataSchema>;

/** Checks answers against what was asked; returns the first problem, if any. */
export function checkAskUserAnswers(input: AskUserInput, metadata: unknown): string | undefined {
  const parsed = askUserMetadataSchema.safeParse(metadata);
  if (!parsed.success) return describeZodIssues(parsed.error);
  const answered = new Set<string>();
  for (const answer of parsed.data.answers) {
    const asked = input.questions.find((question) => question.question === answer.question);
    if (asked === undefined) return `answer to a question that was not asked: '${answer.question}'`;
    if (answered.has(answer.question)) return `question '${answer.question}' is answered twice`;
    answered.add(answer.question);
    const labels = new Set(asked.options.map((option) => option.label));
    if (new Set(answer.selected).size !== answer.selected.length) {
      return `question '${answer.question}' has the same option selected twice`;
    }
    const unknown = answer.selected.find((label) => !labels.has(label));
    if (unknown !== undefined)
      return `'${unknown}' is not an option of question '${answer.question}'`;
    if (asked.multiSelect !== true && answer.selected.length > 1) {
      return `question '${answer.question}' takes one option, but ${answer.selected.length} were selected`;
    }
    if (answer.selected.length === 0 && (answer.other === null || answer.other.trim() === '')) {
      return `question '${answer.question}' has neither a selected option nor other text`;
    }
  }
  return undefined;
}

const description = `Ask the user one to four structured questions and wait for the answers.
Use it when you need a decision only the user can make: a preference, a choice between approaches, missing requirements, or approval of a draft.
- Batch related questions into one call instead of asking one after another.
- Give each question 2-4 distinct options with a short label and a description of what choosing it means.
- If you recommend an option, put it first and end its label with "(Recommended)".
- Never add an "Other" option: the user can always answer in their own words.
- Put what the user must look at to answer (a draft, a diff, an error message) in "context", not in the question.
- Use "multiSelect" when choices are not mutually exclusive; "preview" shows content beside an option of a single-select question.
- "header" is a chip label of at most 12 characters (e.g. "Auth method").`;

/**
 * The built-in tool for structured questions. External: the agent parks with
 * REQUIRE_EXTERNAL_EXECUTION, a renderer asks the person, and the answer comes
 * back as a result whose metadata is `AskUserMetadata` (checked against what
 * was asked). Always allowed (read-only) and concurrency-safe.
 */
export const AskUser = tool({
  name: 'AskUser',
  description,
  input: askUserInputSchema,
  readOnly: true,
  concurrencySafe: true,
  external: true,
  outputMetadata: askUserMetadataSchema,
  checkResult: checkAskUserAnswers,
});

/**
 * Builds the result a renderer sends back for an AskUser call: text for the
 * model (one line per answer, `header: choice`) and the answers as metadata.
 */
export function askUserResult(toolCall: ToolCallBlock, answers: AskUserAnswer[]): ToolResultBlock {
  const parsed = parseToolInput(AskUser, toolCall.input);
  if (!parsed.ok)
    throw new InvalidInputError(
      `AskUser call '${toolCall.id}' has invalid input: ${parsed.reason}`,
    );
  const lines = answers.map((answer) => {
    const asked = parsed.input.questions.find((question) => question.question === answer.question);
    const chosen = [...answer.selected, ...(answer.other === null ? [] : [answer.other])].join(
      ', ',
    );
    return `${asked?.header ?? answer.question}: ${chosen}`;
  });
  const metadata: AskUserMetadata = { answers };
  return {
    type: 'tool_result',
    id: toolCall.id,
    name: toolCall.name,
    output: [{ type: 'text', text: lines.join('\n') }],
    state: 'success',
    metadata,
  };
}

/**
 * The result a renderer sends back when a person skips an AskUser call
 * without answering: state `interrupted` (nothing was chosen), with text
 * the model reads, and the person's words when they gave some (a message
 * typed instead of an answer).
 */
export function askUserSkipped(toolCall: ToolCallBlock, reason?: string): ToolResultBlock {
  const said = reason?.trim() ?? '';
  const text =
    said === ''
      ? 'The user skipped these questions without answering them.'
      : `The user skipped these questions without answering them, and said instead: ${said}`;
  return {
    type: 'tool_result',
    id: toolCall.id,
    name: toolCall.name,
    output: [{ type: 'text', text }],
    state: 'interrupted',
  };
}
