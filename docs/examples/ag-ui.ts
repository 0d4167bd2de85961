// Guide example: a Parley agent behind an AG-UI client. The server is
// `createServer` on a store; the client is `@ag-ui/client`'s HttpAgent, as a
// web page (or CopilotKit) would use it. The agent asks before it writes a
// note: the run ends with an interrupt, the page shows it, and the next run
// answers it with `resume`.
import { HttpAgent } from '@ag-ui/client';
import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { z } from 'zod';
import { InMemorySessionStore, Toolkit, tool } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { createServer } from '@parley/server';

export async function aguiExample(): Promise<{
  asked: { id: string; reason: string; message: string | undefined }[];
  answer: string;
  written: string[];
}> {
  const written: string[] = [];
  const writeNote = tool({
    name: 'write_note',
    description: 'Write a note to the notebook.',
    input: z.object({ path: z.string(), content: z.string() }),
    execute: ({ path }) => {
      written.push(path);
      return `Wrote ${path}`;
    },
  });
  // A stand-in for a real model: it asks to write a note, then says it is done.
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'write_note', input: { path: 'todo.md', content: '- ship' } }] },
    { text: 'The note is written.' },
  ]);
  const server = createServer({
    store: new InMemorySessionStore(),
    agent: { name: 'assistant', model, toolkit: new Toolkit([writeNote]) },
    // Your own authentication; here one fixed token stands for one person.
    authenticate: (request) =>
      request.headers.get('authorization') === 'Bearer ada-token' ? { id: 'ada' } : null,
  });
  const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
  try {
    // The page's side: the thread id is the Parley session id.
    const agent = new HttpAgent({
      url: `${url}/v1/agui`,
      headers: { authorization: 'Bearer ada-token' },
    });
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Note: ship it' });
    await agent.runAgent();

    // The run ended with an interrupt per waiting call; show them, collect answers.
    const asked = agent.pendingInterrupts.map((interrupt: Interrupt) => ({
      id: interrupt.id,
      reason: interrupt.reason,
      message: interrupt.message,
    }));
    const resume: ResumeEntry[] = agent.pendingInterrupts.map((interrupt) => ({
      interruptId: interrupt.id,
      status: 'resolved',
      payload: { approved: true },
    }));
    const { newMessages } = await agent.runAgent({ resume });
    const answer = newMessages
      .flatMap((message) =>
        message.role === 'assistant' && typeof message.content === 'string'
          ? [message.content]
          : [],
      )
      .join('\n');
    return { asked, answer, written };
  } finally {
    await server.close();
  }
}
