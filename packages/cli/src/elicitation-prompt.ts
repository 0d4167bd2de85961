import { input } from '@inquirer/prompts';
import type { ToolCallBlock } from '@parley/core';
import { checkElicitationUrl, checkMcpElicitationAnswer, parseElicitationCall } from '@parley/mcp';
import type { McpElicitationAnswer, McpElicitationInput } from '@parley/mcp';
import { promptAskUser } from './ask-user-prompt.js';
import type { AskUserQuestion } from './ask-user-prompt.js';
import { inert } from './inert.js';
import type { Screen } from './renderer.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** Dependencies of the elicitation prompt. */
export type ElicitationPromptOptions = { screen: Screen; colors: Colors };

/** One field of a form, as MCP's restricted schema describes it. */
type Field = {
  name: string;
  title: string;
  description: string;
  type: string;
  required: boolean;
  choices: string[] | undefined;
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The choices of an enum field (`enum`, or `oneOf` of `{ const }`), if it is one. */
function choicesOf(schema: Record<string, unknown>): string[] | undefined {
  const values = schema['enum'];
  if (Array.isArray(values)) return values.filter((value) => typeof value === 'string');
  const options = schema['oneOf'] ?? schema['anyOf'];
  if (!Array.isArray(options)) return undefined;
  const consts = options.flatMap((option) => (isRecord(option) ? [text(option['const'])] : []));
  return consts.filter((value) => value !== '');
}

/** The fields of a form's `requestedSchema`, in order. */
export function formFields(requestedSchema: Record<string, unknown> | undefined): Field[] {
  const properties = requestedSchema?.['properties'];
  if (!isRecord(properties)) return [];
  const required = new Set(
    Array.isArray(requestedSchema?.['required']) ? requestedSchema['required'].map(text) : [],
  );
  return Object.entries(properties).flatMap(([name, schema]) => {
    if (!isRecord(schema)) return [];
    return [
      {
        name,
        title: text(schema['title']) || name,
        description: text(schema['description']),
        type: text(schema['type']),
        required: required.has(name),
        choices: choicesOf(schema),
      },
    ];
  });
}

/** A one-question AskUser shape, so choices are rendered by the AskUser renderer. */
function question(
  header: string,
  prompt: string,
  labels: [string, string][],
  context?: string,
): AskUserQuestion {
  return {
    question: prompt,
    header: header.slice(0, 12),
    ...(context === undefined ? {} : { context }),
    options: labels.map(([label, description]) => ({ label, description })),
  };
}

/** Asks one AskUser-shaped question; the "Other" text counts as the answer when typed. */
async function ask(item: AskUserQuestion, options: ElicitationPromptOptions): Promise<string> {
  const [answer] = await promptAskUser([item], options);
  return answer?.other ?? answer?.selected[0] ?? '';
}

async function fieldValue(
  field: Field,
  options: ElicitationPromptOptions,
): Promise<string | number | boolean | undefined> {
  const label = inert(`${field.title}${field.description === '' ? '' : ` (${field.description})`}`);
  if (field.type === 'boolean') {
    const picked = await ask(
      question(field.title, label, [
        ['Yes', 'true'],
        ['No', 'false'],
      ]),
      options,
    );
    return picked === 'Yes';
  }
  if (field.choices !== undefined && field.choices.length > 0) {
    return ask(
      question(
        field.title,
        label,
        field.choices.map((choice) => [choice, '']),
      ),
      options,
    );
  }
  const raw = await input({
    message: `${label}${field.required ? '' : ' — optional, Enter skips'}:`,
    required: field.required,
    validate: (value) =>
      (field.type === 'number' || field.type === 'integer') &&
      value.trim() !== '' &&
      !Number.isFinite(Number(value))
        ? 'Type a number.'
        : true,
  });
  if (raw.trim() === '' && !field.required) return undefined;
  return field.type === 'number' || field.type === 'integer' ? Number(raw) : raw;
}

/** A URL request's link with its host spelled out, or why it is refused. */
function linkLines(url: string, colors: Colors): string {
  const bar = colors.dim(glyphs.bar);
  const link = checkElicitationUrl(url);
  if (!link.ok) {
    return `${bar} ${colors.red(`${glyphs.error} link refused: ${link.reason}`)} ${colors.dim(inert(url))}`;
  }
  return `${bar} open: ${colors.bold(inert(link.url))}\n${bar} ${colors.dim('host:')} ${colors.bold(inert(link.host))}`;
}

/** The lines shown for an elicitation: who asks, and what. */
export function formatElicitation(asked: McpElicitationInput, colors: Colors): string {
  const bar = colors.dim(glyphs.bar);
  const head = `${colors.magenta(glyphs.ask)} ${colors.bold(`MCP server ${inert(asked.server)}`)} ${colors.magenta('asks you')} ${colors.dim(`(during ${inert(asked.tool)})`)}`;
  const link = asked.mode === 'url' ? `\n${linkLines(asked.url ?? '', colors)}` : '';
  const message = inert(asked.message).split('\n').join(`\n${bar} `);
  return `${head}\n${bar} ${message}${link}\n`;
}

/**
 * Asks the person an MCP server's question: accept, decline or cancel
 * through the AskUser renderer; for an accepted form, each field (choices
 * and yes/no through the renderer, text and numbers typed), checked
 * against the schema before it goes back. A URL request shows the link and
 * waits for done or cancel. Throws inquirer's ExitPromptError on Ctrl-C.
 */
export async function promptElicitation(
  toolCall: ToolCallBlock,
  options: ElicitationPromptOptions,
): Promise<McpElicitationAnswer> {
  const asked = parseElicitationCall(toolCall);
  options.screen.write(`\n${formatElicitation(asked, options.colors)}`);
  // Only web links are offered; anything else is declined without asking.
  if (asked.mode === 'url' && !checkElicitationUrl(asked.url ?? '').ok)
    return { action: 'decline' };
  const choice = await ask(
    question(
      asked.server,
      asked.mode === 'url' ? 'Open the link, then:' : 'Answer the form?',
      asked.mode === 'url'
        ? [
            ['Done', 'I opened it and finished there'],
            ['Decline', 'I will not do this'],
            ['Cancel', 'Dismiss without a decision'],
          ]
        : [
            ['Accept', 'Fill in the form'],
            ['Decline', 'Refuse to answer'],
            ['Cancel', 'Dismiss without a decision'],
          ],
    ),
    options,
  );
  if (choice === 'Decline') return { action: 'decline' };
  if (choice !== 'Accept' && choice !== 'Done') return { action: 'cancel' };
  if (asked.mode === 'url') return { action: 'accept' };
  for (;;) {
    const content: Record<string, string | number | boolean> = {};
    for (const field of formFields(asked.requestedSchema)) {
      const value = await fieldValue(field, options);
      if (value !== undefined) content[field.name] = value;
    }
    const answer: McpElicitationAnswer = { action: 'accept', content };
    const problem = checkMcpElicitationAnswer(asked, answer);
    if (problem === undefined) return answer;
    options.screen.write(`${options.colors.red(`${glyphs.error} ${problem}`)}\n`);
  }
}
