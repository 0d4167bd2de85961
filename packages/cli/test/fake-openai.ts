import { createServer } from 'node:http';
import type { Server } from 'node:http';

/** One request the fake server received: the parsed JSON body. */
export type FakeRequest = { messages: { role: string; content?: unknown }[] } & Record<
  string,
  unknown
>;

/** What the fake server streams back: text, then tool calls, as chat.completion.chunk events. */
export type FakeTurn = {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
};

function isFakeRequest(value: unknown): value is FakeRequest {
  return (
    typeof value === 'object' &&
    value !== null &&
    'messages' in value &&
    Array.isArray(value.messages)
  );
}

function chunk(delta: Record<string, unknown>, finishReason: string | null): string {
  const body = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/**
 * A local stand-in for an OpenAI-compatible server (Chat Completions,
 * streamed), so the CLI's real adapter path runs end to end with no network.
 * `respond` decides each turn from the request.
 */
export async function startFakeOpenAI(
  respond: (request: FakeRequest) => FakeTurn,
): Promise<{ url: string; requests: FakeRequest[]; close: () => Promise<void> }> {
  const requests: FakeRequest[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (data: Buffer) => (raw += data.toString('utf8')));
    request.on('end', () => {
      const body: unknown = JSON.parse(raw);
      if (!request.url?.endsWith('/chat/completions') || !isFakeRequest(body)) {
        response.writeHead(404).end();
        return;
      }
      requests.push(body);
      const turn = respond(body);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: '' }, null));
      for (const piece of (turn.text ?? '').match(/.{1,4}/gs) ?? [])
        response.write(chunk({ content: piece }, null));
      (turn.toolCalls ?? []).forEach((call, index) => {
        response.write(
          chunk(
            {
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                },
              ],
            },
            null,
          ),
        );
      });
      response.write(chunk({}, (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('The fake server has no port.');
  const port = address.port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
