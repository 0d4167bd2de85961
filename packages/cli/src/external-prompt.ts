import { input, select } from '@inquirer/prompts';
import type { ToolCallBlock, ToolResultBlock } from '@parley/core';
import { parseJson, prettyInput, truncate } from './format.js';
import { inert } from './inert.js';
import type { Screen } from './renderer.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** The block shown for a call a person carries out: the tool and its input. */
export function formatExternalRequest(
  toolCall: ToolCallBlock,
  colors: Colors,
  width: number,
): string {
  const bar = colors.dim(glyphs.bar);
  const room = Math.max(8, width - 2);
  const lines = [
    `${colors.magenta(glyphs.ask)} ${colors.bold(inert(toolCall.name))} ${colors.magenta('is yours to run')} ${colors.dim('(external tool: do it, then report the result)')}`,
    ...prettyInput(toolCall.input)
      .split('\n')
      .map((line) => `${bar} ${truncate(line, room)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The result block sent back for an external call (pure). */
export function externalResult(
  toolCall: ToolCallBlock,
  outcome: 'success' | 'error',
  text: string,
  metadata?: Record<string, unknown>,
): ToolResultBlock {
  return {
    type: 'tool_result',
    id: toolCall.id,
    name: toolCall.name,
    output: [{ type: 'text', text }],
    state: outcome,
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** Dependencies of the external-tool prompt. */
export type ExternalPromptOptions = {
  screen: Screen;
  colors: Colors;
  /** The tool's check of a successful result's metadata: a problem, or undefined when fine. */
  checkMetadata(
    toolCall: ToolCallBlock,
    metadata: Record<string, unknown> | undefined,
  ): string | undefined;
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Shows an external call and asks the person how it went and for its
 * result text; when the tool expects result metadata, asks for it as JSON.
 * Throws inquirer's ExitPromptError on Ctrl-C.
 */
export async function promptExternal(
  toolCall: ToolCallBlock,
  options: ExternalPromptOptions,
): Promise<ToolResultBlock> {
  const { screen, colors } = options;
  screen.write(`\n${formatExternalRequest(toolCall, colors, screen.columns())}`);
  const outcome = await select<'success' | 'error'>({
    message: `How did ${inert(toolCall.name)} go?`,
    choices: [
      { value: 'success', name: 'Done', description: 'It worked; type what happened.' },
      { value: 'error', name: 'Failed', description: 'It did not work; type the error.' },
    ],
  });
  const text = await input({
    message: outcome === 'success' ? 'Result (the model reads it):' : 'Error (the model reads it):',
    required: true,
  });
  if (outcome === 'error' || options.checkMetadata(toolCall, undefined) === undefined) {
    return externalResult(toolCall, outcome, text);
  }
  const raw = await input({
    message: `${inert(toolCall.name)} also expects result metadata (JSON object):`,
    validate: (value) => {
      const parsed = parseJson(value);
      if (!isRecord(parsed)) return 'Type a JSON object, e.g. {"url": "https://…"}.';
      return options.checkMetadata(toolCall, parsed) ?? true;
    },
  });
  const metadata = parseJson(raw);
  return externalResult(toolCall, outcome, text, isRecord(metadata) ? metadata : undefined);
}
