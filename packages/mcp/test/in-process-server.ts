import { InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  inputRequired,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

/** What the in-process server saw: retries' request states, and how often it started. */
export type ServerLog = { starts: number; requestStates: (string | undefined)[] };

/**
 * The in-process server's tools: `deploy` asks for a confirmation with
 * `input_required` (2026 revision; durable: the retry carries the answer
 * and the request state); `crash` drops the connection mid-call (`drop`);
 * `echo` answers; `grow` adds a tool (`tools/list_changed`); `link` asks to
 * open a `javascript:` link (`input_required`).
 */
function buildServer(log: ServerLog, drop: () => Promise<void>): McpServer {
  const server = new McpServer({ name: 'in-process', version: '1.0.0' });
  const confirmation = z.object({ confirm: z.boolean(), note: z.string().optional() });
  server.registerTool(
    'deploy',
    { description: 'Deploy after a confirmation.', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx) => {
      const request = ctx.mcpReq;
      if (request.inputResponses !== undefined)
        log.requestStates.push(request.requestState<string>());
      const answer = acceptedContent(request.inputResponses, 'confirm', confirmation);
      if (answer === undefined) {
        if (request.inputResponses !== undefined) {
          return { content: [{ type: 'text', text: `not deployed to ${env}` }] };
        }
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: confirmation,
            }),
          },
          requestState: `deploy:${env}`,
        });
      }
      return {
        content: [
          {
            type: 'text',
            text: `deployed to ${env}: ${answer.confirm ? 'yes' : 'no'} ${answer.note ?? ''}`.trim(),
          },
        ],
      };
    },
  );
  server.registerTool('crash', { description: 'Drops the connection.' }, async () => {
    await drop();
    return { content: [{ type: 'text', text: 'never seen' }] };
  });
  server.registerTool(
    'echo',
    { description: 'Echo.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool('link', { description: 'Asks to open a javascript: link.' }, async (ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    if (responses !== undefined) {
      return { content: [{ type: 'text', text: `link answer: ${JSON.stringify(responses)}` }] };
    }
    return inputRequired({
      inputRequests: {
        open: inputRequired.elicitUrl({ message: 'Open this', url: 'javascript:alert(1)' }),
      },
    });
  });
  server.registerTool('hang', { description: 'Never answers.' }, () => new Promise(() => {}));
  server.registerTool('grow', { description: 'Adds the tool `late`.' }, async () => {
    server.registerTool('late', { description: 'Added later.' }, async () => ({
      content: [{ type: 'text', text: 'late answer' }],
    }));
    return { content: [{ type: 'text', text: 'grown' }] };
  });
  return server;
}

/**
 * The server of the 2026 revision, in process over Streamable HTTP: the
 * SDK's HTTP entry (`createMcpHandler`) answers the client's requests
 * through a `fetch` function, with no socket.
 */
export function modernServer(log: ServerLog): () => Transport {
  const handler = createMcpHandler(() => buildServer(log, async () => {}), { legacy: 'reject' });
  return () => {
    log.starts += 1;
    return new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    });
  };
}

/**
 * The same server, 2025 revision, over an in-memory pair; `crash` closes the
 * pair. With `startsAllowed`, starts past that many throw (a restart that fails).
 */
export function inMemoryServer(log: ServerLog, startsAllowed = Infinity): () => Transport {
  return () => {
    log.starts += 1;
    if (log.starts > startsAllowed) throw new Error('the server binary is gone');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = buildServer(log, () => serverSide.close());
    void server.connect(serverSide);
    return clientSide;
  };
}
