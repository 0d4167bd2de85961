/**
 * A local HTTP server that plays a provider for the adapter tests: each
 * request gets the next scripted response (a recorded stream transcript or
 * an error), and every request is recorded so tests can assert what the
 * real SDK client sent. Listens on 127.0.0.1, port 0.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';

/** One scripted answer. */
export type ScriptedResponse =
  | {
      kind: 'stream';
      /** The transcript, in the provider's wire format. */
      body: string;
      contentType: 'text/event-stream' | 'application/x-ndjson';
      /** Send only the first N frames, then keep the connection open (for abort tests). */
      hangAfterFrames?: number;
      /** Send only the first N frames, then drop the connection mid-body. */
      cutAfterFrames?: number;
    }
  | {
      kind: 'error';
      status: number;
      body: unknown;
      headers?: Record<string, string>;
    };

/** A request as the server received it. */
export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
};

/** Reads `test/fixtures/<provider>/<name>`. */
export function fixture(provider: string, name: string): string {
  return readFileSync(new URL(`./fixtures/${provider}/${name}`, import.meta.url), 'utf8');
}

/** A recorded SSE transcript as a scripted stream response. */
export function sse(provider: string, name: string, hangAfterFrames?: number): ScriptedResponse {
  return {
    kind: 'stream',
    body: fixture(provider, name),
    contentType: 'text/event-stream',
    ...(hangAfterFrames === undefined ? {} : { hangAfterFrames }),
  };
}

/** A recorded NDJSON transcript as a scripted stream response. */
export function ndjson(provider: string, name: string, hangAfterFrames?: number): ScriptedResponse {
  return {
    kind: 'stream',
    body: fixture(provider, name),
    contentType: 'application/x-ndjson',
    ...(hangAfterFrames === undefined ? {} : { hangAfterFrames }),
  };
}

/** SSE events are separated by a blank line; NDJSON values by a newline. */
function frames(response: Extract<ScriptedResponse, { kind: 'stream' }>): string[] {
  const separator = response.contentType === 'text/event-stream' ? '\n\n' : '\n';
  return response.body
    .split(separator)
    .filter((frame) => frame.trim() !== '')
    .map((frame) => frame + separator);
}

/** The fake provider. */
export class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #script: ScriptedResponse[] = [];
  #url = '';

  private constructor() {
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
  }

  /** Starts a server on 127.0.0.1 with an OS-chosen port. */
  static async start(): Promise<FakeProviderServer> {
    const server = new FakeProviderServer();
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    const address = server.#server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    server.#url = `http://127.0.0.1:${address.port}`;
    return server;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return this.#url;
  }

  /** Queues responses, answered in order, one per request. */
  enqueue(...responses: ScriptedResponse[]): void {
    this.#script.push(...responses);
  }

  /** The parsed JSON bodies of every request so far. */
  bodies(): unknown[] {
    return this.requests.map((request) => request.body);
  }

  /** Stops listening and drops open connections (hanging streams included). */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) {
      if (chunk instanceof Buffer) chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    this.requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: text === '' ? undefined : JSON.parse(text),
    });
    const scripted = this.#script.shift();
    if (scripted === undefined) {
      response.writeHead(599, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'the test scripted no response for this request' }));
      return;
    }
    if (scripted.kind === 'error') {
      response.writeHead(scripted.status, {
        'content-type': 'application/json',
        ...scripted.headers,
      });
      response.end(JSON.stringify(scripted.body));
      return;
    }
    response.writeHead(200, { 'content-type': scripted.contentType, 'cache-control': 'no-cache' });
    const all = frames(scripted);
    const stopAt = scripted.hangAfterFrames ?? scripted.cutAfterFrames;
    const sent = stopAt === undefined ? all : all.slice(0, stopAt);
    for (const frame of sent) response.write(frame);
    if (scripted.cutAfterFrames !== undefined) {
      // Let the frames out first, then drop the connection without ending the chunked body.
      await new Promise<void>((resolve) => response.write('', () => resolve()));
      response.socket?.destroy();
    } else if (scripted.hangAfterFrames === undefined) response.end();
  }
}
