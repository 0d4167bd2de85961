import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  isInputRequiredResult,
} from '@modelcontextprotocol/client';
import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  InputResponses,
  Tool as McpToolDefinition,
  Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { sandboxedCommand } from './stdio-sandbox.js';
import type { Logger } from '@parley/core';
import type { McpProtocol, McpServerConfig } from './config.js';
import type { McpElicitationAnswer } from './elicitation.js';
import { checkElicitationUrl } from './elicitation-url.js';
import { McpServerError } from './errors.js';
import { InFlightCall } from './in-flight-call.js';
import { jsonProblem } from './json-bounds.js';
import { outputSchemaValidator } from './json-schema.js';
import { MAX_SCHEMA_CHARS, readToolList } from './tool-list.js';
import type { McpToolEntry, McpToolListing, McpToolProblem } from './tool-list.js';

export type { McpToolDefinition };

/** Default time a server may take to start and list its tools. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** Default time one tool call may take. */
export const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;

/** The retry of a call after `input_required` (2026 revision). */
export type McpRetry = { inputResponses: InputResponses; requestState?: string };

/** The last output a child process wrote to stderr, for error messages. */
class StderrTail {
  private text = '';
  add(chunk: unknown): void {
    this.text = (this.text + String(chunk)).slice(-2000);
  }
  describe(): string {
    const tail = this.text.trim();
    return tail === '' ? '' : ` (stderr: ${tail.split('\n').slice(-3).join(' | ')})`;
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function negotiation(protocol: McpProtocol | undefined): {
  mode: 'legacy' | 'auto' | { pin: string };
} {
  if (protocol === undefined || protocol === 'legacy') return { mode: 'legacy' };
  if (protocol === 'auto') return { mode: 'auto' };
  return { mode: { pin: protocol } };
}

/**
 * Why an elicitation is answered `decline` without asking anyone, or
 * undefined: a URL request whose link is not a web link, or a form whose
 * schema is too deep or too large to keep in the session.
 */
export function refusedElicitation(request: {
  mode?: string | undefined;
  url?: unknown;
  requestedSchema?: unknown;
}): string | undefined {
  if (request.mode === 'url') {
    const link = checkElicitationUrl(typeof request.url === 'string' ? request.url : '');
    return link.ok ? undefined : link.reason;
  }
  const problem = jsonProblem(request.requestedSchema, { maxChars: MAX_SCHEMA_CHARS });
  return problem === undefined ? undefined : `the form's schema is ${problem}`;
}

/**
 * One configured MCP server: started on first use, restarted after it
 * died, its tools listed and kept fresh on `tools/list_changed`. Tool calls
 * are `InFlightCall`s; the server's elicitations are routed to the oldest
 * open call that is not already waiting for an answer (stdio carries no
 * link from an elicitation to its call).
 */
export class McpServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  /** Where this server's problems are logged. */
  readonly logger: Logger;
  private readonly onToolsChanged: () => void;
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private listing: McpToolListing = { entries: new Map(), problems: [] };
  private readonly open = new Set<InFlightCall>();
  private closed = false;

  constructor(
    name: string,
    config: McpServerConfig,
    options: { logger: Logger; onToolsChanged: () => void },
  ) {
    this.name = name;
    this.config = config;
    this.logger = options.logger;
    this.onToolsChanged = options.onToolsChanged;
  }

  /** Whether the config marks the server trusted (its `readOnlyHint` may allow calls). */
  get trusted(): boolean {
    return this.config.trusted === true;
  }

  /**
   * Takes tool definitions listed earlier (a manifest), so the tools are
   * offered before the server runs; it starts on the first call.
   */
  seed(definitions: McpToolDefinition[]): void {
    this.list(definitions);
  }

  /** The tools the server offered at the last listing, as Parley offers them (capped). */
  tools(): McpToolDefinition[] {
    return [...this.listing.entries.values()].map((entry) => entry.definition);
  }

  /** The tools of the last listing with their Parley names and compiled schemas. */
  entries(): McpToolEntry[] {
    return [...this.listing.entries.values()];
  }

  /** The server's current entry for a tool, if it still offers it. */
  entry(toolName: string): McpToolEntry | undefined {
    return this.listing.entries.get(toolName);
  }

  /** The server's current definition of a tool, if it still offers it. */
  definition(toolName: string): McpToolDefinition | undefined {
    return this.entry(toolName)?.definition;
  }

  /** What the last listing left out, trimmed or cannot call, and why. */
  problems(): McpToolProblem[] {
    return [...this.listing.problems];
  }

  /** Takes a new tool list: capped, compiled once, names checked; problems logged. */
  private list(definitions: McpToolDefinition[]): void {
    this.listing = readToolList(this.name, definitions);
    for (const problem of this.listing.problems) {
      this.logger.warn('MCP tool problem', { ...problem });
    }
  }

  /** Starts the server if it is not running, and lists its tools. */
  async start(): Promise<Client> {
    if (this.closed) throw new McpServerError(this.name, 'the MCP connections are closed');
    if (this.client !== undefined) return this.client;
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /**
   * Calls a tool. Starting the server is part of the call: a server that
   * cannot start gives a `failed` event, not a throw.
   */
  call(toolName: string, args: Record<string, unknown>, retry?: McpRetry): InFlightCall {
    const controller = new AbortController();
    const signal = controller.signal;
    const outcome = this.start().then((client) =>
      client.callTool(
        {
          name: toolName,
          arguments: args,
          ...(retry === undefined ? {} : retry),
        },
        {
          signal,
          timeout: this.config.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
          allowInputRequired: true,
        },
      ),
    );
    const call = new InFlightCall(outcome, isInputRequiredResult, controller);
    this.open.add(call);
    const forget = (): void => {
      this.open.delete(call);
    };
    outcome.then(forget, forget);
    return call;
  }

  /** Stops the server; open calls fail, and it is not started again. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.starting?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async transport(stderr: StderrTail): Promise<Transport> {
    const config = this.config;
    if ('transport' in config) return config.transport();
    if ('command' in config) {
      const cwd = config.cwd ?? process.cwd();
      const run =
        config.sandbox === undefined || config.sandbox === false
          ? { command: config.command, args: config.args ?? [] }
          : await sandboxedCommand(config.command, config.args ?? [], config.sandbox, { cwd });
      const transport = new StdioClientTransport({
        command: run.command,
        args: run.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk) => stderr.add(chunk));
      return transport;
    }
    const init = { requestInit: { headers: config.headers ?? {} } };
    return config.type === 'sse'
      ? new SSEClientTransport(new URL(config.url), init)
      : new StreamableHTTPClientTransport(new URL(config.url), init);
  }

  private newClient(): Client {
    const client = new Client(
      { name: 'parley', version: '0.1.0' },
      {
        capabilities: { elicitation: { form: {}, url: {} } },
        jsonSchemaValidator: outputSchemaValidator(),
        versionNegotiation: negotiation(this.config.protocol),
        inputRequired: { autoFulfill: false },
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error !== null || tools === null) {
                this.logger.warn('MCP tool list refresh failed', {
                  server: this.name,
                  error: describeError(error),
                });
                return;
              }
              this.list(tools);
              this.onToolsChanged();
            },
          },
        },
      },
    );
    client.setRequestHandler('elicitation/create', (request) => this.route(request.params));
    return client;
  }

  private async connect(): Promise<Client> {
    const timeoutMs = this.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const stderr = new StderrTail();
    const client = this.newClient();
    try {
      await this.connectWithFallback(client, stderr, timeoutMs);
      const { tools } = await client.listTools(undefined, { timeout: timeoutMs });
      this.list(tools);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpServerError(
        this.name,
        `could not start: ${describeError(error)}${stderr.describe()}`,
        { cause: error },
      );
    }
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
      if (!this.closed)
        this.logger.warn('MCP server stopped; it restarts on the next call', { server: this.name });
    };
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpServerError(this.name, 'the MCP connections are closed');
    }
    this.client = client;
    return client;
  }

  /** Streamable HTTP first; an unspecified HTTP type falls back to SSE (older servers). */
  private async connectWithFallback(
    client: Client,
    stderr: StderrTail,
    timeoutMs: number,
  ): Promise<void> {
    const config = this.config;
    try {
      await client.connect(await this.transport(stderr), { timeout: timeoutMs });
    } catch (error) {
      if (!('url' in config) || config.type !== undefined) throw error;
      this.logger.info('Streamable HTTP failed; trying SSE', {
        server: this.name,
        error: describeError(error),
      });
      await client.close().catch(() => undefined);
      const init = { requestInit: { headers: config.headers ?? {} } };
      await client.connect(new SSEClientTransport(new URL(config.url), init), {
        timeout: timeoutMs,
      });
    }
  }

  /** Routes a server's elicitation to the open call it belongs to; with none, it is cancelled. */
  private route(
    request: ElicitRequestFormParams | ElicitRequestURLParams,
  ): Promise<McpElicitationAnswer> {
    const refused = refusedElicitation(request);
    if (refused !== undefined) {
      this.logger.warn('MCP elicitation refused; answered decline', {
        server: this.name,
        reason: refused,
      });
      return Promise.resolve({ action: 'decline' });
    }
    for (const call of this.open) {
      if (!call.waiting && !call.settled) return call.elicit(request);
    }
    this.logger.warn('MCP elicitation outside a tool call; answered cancel', { server: this.name });
    return Promise.resolve({ action: 'cancel' });
  }
}
