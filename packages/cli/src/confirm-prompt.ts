import { input, select } from '@inquirer/prompts';
import { assertNever } from '@parley/core';
import type { ConfirmResult, PermissionAsk, ToolCallBlock } from '@parley/core';
import { describeRule, parseJson, prettyInput, truncate } from './format.js';
import { inert, inertJson } from './inert.js';
import type { Screen } from './renderer.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** What a person can answer to a confirmation. */
export type ConfirmChoice = 'yes' | 'always' | 'no' | 'edit';

/** The longest input shown in full; longer ones are cut with a count. */
const maxInputLines = 24;

/**
 * The block shown above the question: the tool, why it asks (the decision's
 * reason, and whether it is a safety check no rule can clear), its input
 * pretty-printed, and the rules "always allow" would add.
 */
export function formatConfirmRequest(
  toolCall: ToolCallBlock,
  colors: Colors,
  width: number,
  ask?: PermissionAsk,
): string {
  const bar = colors.dim(glyphs.bar);
  const lines = prettyInput(toolCall.input).split('\n');
  const shown =
    lines.length <= maxInputLines
      ? lines
      : [...lines.slice(0, maxInputLines - 1), `… ${lines.length - maxInputLines + 1} more lines`];
  const room = Math.max(8, width - 2);
  const out = [
    `${colors.yellow(glyphs.ask)} ${colors.bold(inert(toolCall.name))} ${colors.yellow('needs your permission')}`,
    ...reasonLines(ask, colors, room),
    ...shown.map((line) => `${bar} ${truncate(line, room)}`),
  ];
  if (toolCall.suggestedRules.length > 0) {
    const rules = toolCall.suggestedRules.map(describeRule).join(', ');
    out.push(`${bar} ${colors.dim(truncate(`suggested rule: ${rules}`, room))}`);
  }
  return `${out.join('\n')}\n`;
}

/** Why the call asks, cut to the width; nothing when no reason was kept. */
function reasonLines(ask: PermissionAsk | undefined, colors: Colors, room: number): string[] {
  const bar = colors.dim(glyphs.bar);
  const lines: string[] = [];
  if (ask?.decisionReason !== undefined && ask.decisionReason !== '') {
    lines.push(`${bar} ${colors.yellow(truncate(inert(`why: ${ask.decisionReason}`), room))}`);
  }
  if (ask?.bypassImmune === true) {
    lines.push(`${bar} ${colors.dim(truncate('a safety check: no rule or mode clears it', room))}`);
  }
  return lines;
}

/** The choices offered for a call: "always allow" only when there are rules to add. */
export function confirmChoices(
  toolCall: ToolCallBlock,
): { value: ConfirmChoice; name: string; description: string }[] {
  const rules = toolCall.suggestedRules.map(describeRule).join(', ');
  return [
    { value: 'yes', name: 'Yes', description: 'Run it this once.' },
    ...(toolCall.suggestedRules.length === 0
      ? []
      : [
          {
            value: 'always' as const,
            name: `Yes, and always allow ${rules}`,
            description: 'Run it, and add the rule so matching calls run without asking.',
          },
        ]),
    { value: 'no', name: 'No', description: 'Refuse; you can tell the model why.' },
    { value: 'edit', name: 'Edit the input', description: 'Change the input, then run it.' },
  ];
}

/** The `ConfirmResult` for a choice (pure; the prompts gather `reason` and `input`). */
export function confirmResult(
  choice: ConfirmChoice,
  toolCall: ToolCallBlock,
  extra: { reason?: string; input?: string } = {},
): ConfirmResult {
  switch (choice) {
    case 'yes':
      return { confirmed: true, toolCall };
    case 'always':
      return { confirmed: true, toolCall, rules: toolCall.suggestedRules };
    case 'no': {
      const reason = extra.reason?.trim() ?? '';
      return reason === ''
        ? { confirmed: false, toolCall }
        : { confirmed: false, toolCall, reason };
    }
    case 'edit':
      return { confirmed: true, toolCall: { ...toolCall, input: extra.input ?? toolCall.input } };
    default:
      return assertNever(choice, 'confirm choice');
  }
}

/** Dependencies of the confirmation prompt. */
export type ConfirmPromptOptions = {
  screen: Screen;
  colors: Colors;
  /** Checks an edited input against the tool; returns a problem, or undefined when fine. */
  checkInput(toolCall: ToolCallBlock, raw: string): string | undefined;
};

/**
 * Asks the person about one tool call (showing why it asks, when `ask` says)
 * and returns their answer. Throws
 * inquirer's ExitPromptError on Ctrl-C (the caller parks and saves).
 */
export async function promptConfirm(
  toolCall: ToolCallBlock,
  options: ConfirmPromptOptions,
  ask?: PermissionAsk,
): Promise<ConfirmResult> {
  const { screen, colors } = options;
  screen.write(`\n${formatConfirmRequest(toolCall, colors, screen.columns(), ask)}`);
  const choice = await select<ConfirmChoice>({
    message: `Allow ${inert(toolCall.name)}?`,
    choices: confirmChoices(toolCall),
  });
  switch (choice) {
    case 'yes':
    case 'always':
      return confirmResult(choice, toolCall);
    case 'no': {
      const reason = await input({ message: 'Reason (optional, the model reads it):' });
      return confirmResult(choice, toolCall, { reason });
    }
    case 'edit': {
      const parsed = parseJson(toolCall.input);
      const edited = await input({
        message: 'Input (JSON):',
        default: parsed === undefined ? inert(toolCall.input) : inertJson(JSON.stringify(parsed)),
        prefill: 'editable',
        validate: (raw) => {
          if (parseJson(raw) === undefined) return 'That is not valid JSON.';
          return options.checkInput(toolCall, raw) ?? true;
        },
      });
      return confirmResult(choice, toolCall, { input: edited });
    }
    default:
      return assertNever(choice, 'confirm choice');
  }
}
