import type { ToolCallBlock } from '../message/index.js';
import type { AgentState } from '../state/index.js';
import type { Toolkit } from '../tool/index.js';
import { openCallsOf } from './resume.js';
import { agentTexts } from './texts.js';

/**
 * Settles a reply that a stopped process left `running`: a call that had
 * started executing is never run again unless its tool is `idempotent`; it is
 * closed as `interrupted` with a note that its outcome is unknown. Afterwards
 * the reply is `parked` if some call still waits for the user or an external
 * result, else it stays `running` and can be continued or closed.
 */
export function settleStoppedReply(state: AgentState, toolkit: Toolkit): void {
  const reply = state.reply;
  const last = state.context.at(-1);
  if (reply?.status !== 'running' || last === undefined || typeof last.content === 'string') return;
  const content = last.content;
  for (const id of [...reply.executing]) {
    const index = content.findIndex((block) => block.type === 'tool_call' && block.id === id);
    const call = content[index];
    if (call?.type !== 'tool_call') continue;
    const rerun = toolkit.get(call.name)?.idempotent === true;
    const settled: ToolCallBlock = { ...call, state: rerun ? 'allowed' : 'finished' };
    content[index] = settled;
    if (!rerun) {
      content.push({
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: agentTexts.outcomeUnknown,
        state: 'interrupted',
      });
    }
  }
  reply.executing = [];
  const waiting = openCallsOf(state).some((c) => c.state === 'asking' || c.state === 'submitted');
  if (waiting) reply.status = 'parked';
}
