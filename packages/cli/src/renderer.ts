import { assertNever } from '@parley/core';
import type { AgentEvent, ToolResultState } from '@parley/core';
import { formatToolCall, formatToolResult, oneLine, truncate } from './format.js';
import { inert } from './inert.js';
import type { Spinner } from './spinner.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';
import { WordWrap } from './word-wrap.js';

/** The terminal the renderer writes to. */
export type Screen = {
  write(text: string): void;
  /** Current width in columns. */
  columns(): number;
};

/** What the renderer needs to know about tools. */
export type RendererOptions = {
  /** External tools get no "running" spinner: a person runs them. */
  isExternal(toolName: string): boolean;
};

type OpenResult = { name: string; text: string };

/**
 * Turns agent events into terminal output: streamed text as it arrives, a
 * spinner while the model or a tool works, one compact line per tool call and
 * one per result. It only writes; prompts belong to the chat loop.
 */
export class EventRenderer {
  private modelActive = false;
  /** How streamed text is painted: plain for text, dim italic for thinking. */
  private paint: (text: string) => string = (text) => text;
  private readonly wrap: WordWrap;
  private lastCallShown: string | undefined;
  private readonly calls = new Map<string, { name: string; input: string }>();
  private readonly results = new Map<string, OpenResult>();
  private readonly running = new Set<string>();

  constructor(
    private readonly screen: Screen,
    private readonly colors: Colors,
    private readonly spinner: Spinner,
    private readonly options: RendererOptions,
  ) {
    this.wrap = new WordWrap(() => screen.columns() - 1);
  }

  /** Renders one event. */
  handle(event: AgentEvent): void {
    switch (event.type) {
      case 'REPLY_START':
        return;
      case 'MODEL_CALL_START':
        this.modelActive = true;
        this.spinner.start('thinking…');
        return;
      case 'MODEL_CALL_END':
        this.modelActive = false;
        this.spinner.stop();
        return;
      case 'TEXT_BLOCK_START':
        this.spinner.stop();
        this.endLine();
        this.paint = (text) => text;
        return;
      case 'TEXT_BLOCK_DELTA':
        this.stream(event.delta);
        return;
      case 'THINKING_BLOCK_START':
        this.spinner.stop();
        this.endLine();
        this.paint = (text) => this.colors.dim(this.colors.italic(text));
        // A redacted block has no text to show (its data is opaque): say so.
        if (event.redacted === true) this.stream('reasoning (redacted)');
        return;
      case 'THINKING_BLOCK_DELTA':
        this.stream(event.delta);
        return;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
        this.endLine();
        if (this.modelActive) this.spinner.start('thinking…');
        return;
      case 'DATA_BLOCK_START':
        this.line(this.colors.dim(`[${inert(event.mediaType)}]`));
        return;
      case 'DATA_BLOCK_DELTA':
      case 'DATA_BLOCK_END':
        return;
      case 'HINT_BLOCK':
        this.line(
          this.colors.dim(
            `hint: ${typeof event.hint === 'string' ? inert(oneLine(event.hint)) : '(content)'}`,
          ),
        );
        return;
      case 'TOOL_CALL_START':
        this.calls.set(event.toolCallId, { name: event.toolCallName, input: '' });
        this.spinner.start(`preparing ${inert(event.toolCallName)}…`);
        return;
      case 'TOOL_CALL_DELTA': {
        const call = this.calls.get(event.toolCallId);
        if (call !== undefined) call.input += event.delta;
        return;
      }
      case 'TOOL_CALL_END': {
        const call = this.calls.get(event.toolCallId);
        if (call === undefined) return;
        this.line(formatToolCall(call.name, call.input, this.screen.columns(), this.colors));
        this.lastCallShown = event.toolCallId;
        if (this.modelActive) this.spinner.start('thinking…');
        return;
      }
      case 'TOOL_RESULT_START':
        this.results.set(event.toolCallId, { name: event.toolCallName, text: '' });
        if (!this.options.isExternal(event.toolCallName)) {
          this.running.add(event.toolCallId);
          this.spinner.start(`running ${inert(event.toolCallName)}…`);
        }
        return;
      case 'TOOL_RESULT_TEXT_DELTA':
        this.openResult(event.toolCallId).text += event.delta;
        return;
      case 'TOOL_RESULT_DATA_DELTA':
        this.openResult(event.toolCallId).text += `[${inert(event.mediaType)}]`;
        return;
      case 'TOOL_RESULT_END':
        this.endResult(event.toolCallId, event.state);
        return;
      case 'EXCEED_MAX_ITERS':
        this.line(
          this.colors.yellow(`${glyphs.interrupted} ${event.name} reached its iteration limit.`),
        );
        return;
      case 'REQUIRE_USER_CONFIRM':
      case 'REQUIRE_EXTERNAL_EXECUTION':
        this.spinner.stop();
        return;
      case 'REPLY_END':
        this.modelActive = false;
        this.spinner.stop();
        this.endLine();
        if (event.finishedReason === 'interrupted') {
          this.line(this.colors.yellow(`${glyphs.interrupted} Interrupted.`));
        } else if (event.finishedReason === 'error') {
          const error = event.error;
          const text =
            error === undefined ? 'The reply failed.' : `${error.type}: ${error.message}`;
          this.line(this.colors.red(`${glyphs.error} ${truncate(inert(oneLine(text)), 400)}`));
        } else if (event.finishedReason === 'exceed_max_iters') {
          this.line(this.colors.yellow('The reply stopped at the iteration limit.'));
        }
        return;
      default:
        assertNever(event, 'agent event');
    }
  }

  /** Ends a stream's output: no spinner left, the cursor on a fresh line. */
  finish(): void {
    this.modelActive = false;
    this.spinner.stop();
    this.endLine();
    this.lastCallShown = undefined;
    this.running.clear();
  }

  private openResult(toolCallId: string): OpenResult {
    let open = this.results.get(toolCallId);
    if (open === undefined) {
      open = { name: this.calls.get(toolCallId)?.name ?? 'tool', text: '' };
      this.results.set(toolCallId, open);
    }
    return open;
  }

  private endResult(toolCallId: string, state: ToolResultState): void {
    const open = this.openResult(toolCallId);
    this.results.delete(toolCallId);
    this.running.delete(toolCallId);
    this.spinner.stop();
    const label = this.lastCallShown === toolCallId ? undefined : open.name;
    this.line(formatToolResult(state, open.text, this.screen.columns(), this.colors, label));
    this.lastCallShown = undefined;
    const still = [...this.running][0];
    if (still !== undefined) this.spinner.start(`running ${inert(this.openResult(still).name)}…`);
    else if (this.modelActive) this.spinner.start('thinking…');
  }

  private stream(text: string): void {
    this.spinner.stop();
    const out = this.wrap.push(inert(text));
    if (out !== '') this.screen.write(this.paint(out));
  }

  private endLine(): void {
    const rest = this.wrap.end();
    if (rest !== '') this.screen.write(this.paint(rest));
    if (!this.wrap.atLineStart) this.screen.write('\n');
    this.wrap.reset();
  }

  private line(text: string): void {
    this.spinner.stop();
    this.endLine();
    this.screen.write(`${text}\n`);
  }
}
