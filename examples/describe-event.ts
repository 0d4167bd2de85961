// Turns agent events into lines a person can read. Text deltas are returned
// bare so they can be streamed inline.
import type { AgentEvent } from '@parley/core';

const short = (text: string, max = 80): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** A readable rendering of one event, or undefined for events not worth a line. */
export function describeEvent(event: AgentEvent): { inline?: string; line?: string } {
  switch (event.type) {
    case 'REPLY_START':
      return { line: `\n▶ reply ${event.replyId.slice(0, 8)} started` };
    case 'REPLY_END':
      return {
        line: `■ reply ended: ${event.finishedReason}${event.error ? ` (${event.error.message})` : ''}`,
      };
    case 'TEXT_BLOCK_START':
      return { inline: '  assistant: ' };
    case 'TEXT_BLOCK_DELTA':
      return { inline: event.delta };
    case 'TEXT_BLOCK_END':
      return { inline: '\n' };
    case 'THINKING_BLOCK_START':
      return { inline: '  (thinking) ' };
    case 'THINKING_BLOCK_DELTA':
      return { inline: event.delta };
    case 'THINKING_BLOCK_END':
      return { inline: '\n' };
    case 'TOOL_CALL_START':
      return { line: `  → calls ${event.toolCallName}` };
    case 'TOOL_RESULT_TEXT_DELTA':
      return { line: `    ${short(event.delta.replace(/\s+/g, ' '))}` };
    case 'TOOL_RESULT_END':
      return { line: `  ← result: ${event.state}` };
    case 'REQUIRE_USER_CONFIRM':
      return {
        line: event.toolCalls
          .map((call) => {
            const rules = call.suggestedRules.map(
              (rule) => `${rule.toolName}(${rule.ruleContent ?? '*'})`,
            );
            return `  ⏸ needs your confirmation: ${call.name} ${call.input}\n    suggested rules: ${rules.join(', ') || 'none'}`;
          })
          .join('\n'),
      };
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return {
        line: event.toolCalls
          .map((call) => `  ⏸ waits for an external result: ${call.name} ${short(call.input)}`)
          .join('\n'),
      };
    case 'EXCEED_MAX_ITERS':
      return { line: '  ! too many iterations' };
    default:
      return {};
  }
}
