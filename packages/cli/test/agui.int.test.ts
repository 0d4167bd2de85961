// `parley serve --model scripted:commands` as a process, driven over AG-UI
// by `@ag-ui/client`'s HttpAgent: every event it hands over is checked
// against `@ag-ui/core`'s own schema, and each run's lifecycle against the
// protocol's shape.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpAgent } from '@ag-ui/client';
import { EventType } from '@ag-ui/core';
import type { BaseEvent, Interrupt, ResumeEntry, RunAgentInput, Tool } from '@ag-ui/core';
import { EventSchemas, RunErrorEventSchema, RunFinishedEventSchema } from '@ag-ui/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parleyCommand } from './tmux.js';

type Serve = { child: ChildProcess; url: string; token: string; data: string };
const servers: Serve[] = [];

/** `parley keys create NAME` in `data`: the token it printed. */
function createKey(data: string, principal: string): string {
  const [command = 'node', ...rest] = parleyCommand;
  const run = spawnSync(command, [...rest, 'keys', 'create', principal, '--data', data], {
    encoding: 'utf8',
  });
  const token = run.stdout.split('\n').find((line) => line.startsWith('pk_'));
  if (token === undefined) throw new Error(`no key printed: ${run.stderr}`);
  return token;
}

/** Starts `parley serve` with the scripted commands model; resolves once it printed its URL and token. */
function startServe(
  extra: string[] = [],
  data = mkdtempSync(join(tmpdir(), 'parley-agui-')),
): Promise<Serve> {
  const [command = 'node', ...rest] = parleyCommand;
  const child = spawn(
    command,
    [...rest, 'serve', '--model', 'scripted:commands', '--port', '0', '--data', data, ...extra],
    { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      const token = /this run only\): (\S+)/.exec(output)?.[1];
      if (url !== undefined && token !== undefined) {
        const serve = { child, url, token, data };
        servers.push(serve);
        resolve(serve);
      }
    });
    child.once('exit', (code) => reject(new Error(`parley serve exited (${code}): ${output}`)));
  });
}

/** An HttpAgent on a thread of its own, and every event it handed over, run by run. */
class Client {
  readonly agent: HttpAgent;
  readonly runs: BaseEvent[][] = [];

  constructor(
    readonly serve: Serve,
    accept?: string,
  ) {
    const headers = { authorization: `Bearer ${serve.token}` };
    this.agent =
      accept === undefined
        ? new HttpAgent({ url: `${serve.url}/v1/agui`, headers })
        : new ProtobufAgent({ url: `${serve.url}/v1/agui`, headers }, accept);
  }

  /** Sends `text` (if given) and runs; resolves to the run's events, checked. */
  async run(
    text: string | undefined,
    parameters: { resume?: ResumeEntry[]; tools?: Tool[]; runId?: string } = {},
  ): Promise<BaseEvent[]> {
    if (text !== undefined) {
      this.agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
    }
    const events: BaseEvent[] = [];
    await this.agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        events.push(event);
      },
    });
    checkRun(events);
    this.runs.push(events);
    return events;
  }
}

/** An HttpAgent that asks for the protobuf framing. */
class ProtobufAgent extends HttpAgent {
  constructor(
    config: ConstructorParameters<typeof HttpAgent>[0],
    private readonly accept: string,
  ) {
    super(config);
  }

  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: this.accept } };
  }
}

/** Every event valid under AG-UI's schema; one RUN_STARTED first, one terminal event last, nothing left open. */
function checkRun(events: BaseEvent[]): void {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, JSON.stringify(event)).toBe(true);
  }
  expect(events[0]?.type).toBe(EventType.RUN_STARTED);
  const terminal = events.filter(
    (event) => event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR,
  );
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  const balance = (start: EventType, end: EventType, key: string): void => {
    const open = new Set<unknown>();
    for (const event of events) {
      if (event.type === start) open.add(event[key]);
      if (event.type === end) {
        expect(open.has(event[key])).toBe(true);
        open.delete(event[key]);
      }
    }
    expect(open.size).toBe(0);
  };
  balance(EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_END, 'messageId');
  balance(EventType.TOOL_CALL_START, EventType.TOOL_CALL_END, 'toolCallId');
  balance(EventType.STEP_STARTED, EventType.STEP_FINISHED, 'stepName');
  const outcome = outcomeOf(events);
  if (outcome.type === 'interrupt') {
    // The snapshot comes right before an interrupting RUN_FINISHED.
    expect(events.at(-2)?.type).toBe(EventType.MESSAGES_SNAPSHOT);
  }
}

type Outcome =
  | { type: 'success'; pendingToolCallIds?: string[] | undefined }
  | { type: 'interrupt'; interrupts: Interrupt[] }
  | { type: 'cancelled' }
  | { type: 'error'; message: string };

/** How a run ended, read through AG-UI's schemas. */
function outcomeOf(events: BaseEvent[]): Outcome {
  const last = events.at(-1);
  const failed = RunErrorEventSchema.safeParse(last);
  if (failed.success) return { type: 'error', message: failed.data.message };
  const outcome = RunFinishedEventSchema.parse(last).outcome;
  switch (outcome?.type) {
    case undefined:
      return { type: 'success' };
    case 'success':
      return { type: 'success', pendingToolCallIds: outcome.pendingToolCallIds };
    case 'cancelled':
      return { type: 'cancelled' };
    case 'interrupt':
      return {
        type: 'interrupt',
        interrupts: outcome.interrupts.map((interrupt) => ({
          id: interrupt.id,
          reason: interrupt.reason,
          ...(interrupt.toolCallId === undefined ? {} : { toolCallId: interrupt.toolCallId }),
          ...(interrupt.expiresAt === undefined ? {} : { expiresAt: interrupt.expiresAt }),
          ...(interrupt.metadata === undefined ? {} : { metadata: interrupt.metadata }),
        })),
      };
  }
}

function interruptsOf(events: BaseEvent[]): Interrupt[] {
  const outcome = outcomeOf(events);
  if (outcome.type !== 'interrupt') throw new Error(`no interrupt: ${JSON.stringify(outcome)}`);
  return outcome.interrupts;
}

/** The text of every TOOL_CALL_RESULT and text message of a run. */
function textOf(events: BaseEvent[]): string {
  return events
    .map((event) =>
      event.type === EventType.TEXT_MESSAGE_CONTENT
        ? String(event['delta'])
        : event.type === EventType.TOOL_CALL_RESULT
          ? `\n[result ${String(event['content'])}]\n`
          : '',
    )
    .join('');
}

const resolved = (interrupt: Interrupt | undefined, payload: unknown): ResumeEntry => ({
  interruptId: interrupt?.id ?? '',
  status: 'resolved',
  payload,
});

async function post(serve: Serve, body: unknown, token = serve.token): Promise<Response> {
  return fetch(`${serve.url}/v1/agui`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

describe('AG-UI over parley serve, with HttpAgent', () => {
  let serve: Serve;
  let bob = '';
  beforeAll(async () => {
    const data = mkdtempSync(join(tmpdir(), 'parley-agui-'));
    bob = createKey(data, 'bob');
    serve = await startServe([], data);
  }, 60_000);

  afterAll(() => {
    for (const { child, data } of servers) {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('asks for a confirmation as an interrupt and runs the call once resumed', async () => {
    const client = new Client(serve);
    const first = await client.run('note a.md');
    const [interrupt] = interruptsOf(first);
    expect(interrupt?.id).toMatch(/^confirm:/);
    expect(interrupt?.reason).toBe('tool_call');
    expect(interrupt?.metadata?.['parley']).toMatchObject({
      kind: 'confirm',
      toolName: 'write_note',
    });
    expect(client.agent.pendingInterrupts.map((open) => open.id)).toEqual([interrupt?.id]);
    const second = await client.run(undefined, {
      resume: [resolved(interrupt, { approved: true })],
    });
    expect(outcomeOf(second).type).toBe('success');
    expect(textOf(second)).toContain('[result Wrote 5 characters to a.md]');
    expect(textOf(second)).toContain('write_note success');
  }, 30_000);

  it('denies with a reason the model reads', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('delete'));
    const denied = await client.run(undefined, {
      resume: [resolved(interrupt, { approved: false, reason: 'keep them' })],
    });
    expect(textOf(denied)).toMatch(/delete_notes denied: [\s\S]*keep them/);
  }, 30_000);

  it('refuses an edit the tool schema rejects, then runs an edited call', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('note a.md'));
    await expect(
      client.run(undefined, {
        resume: [resolved(interrupt, { approved: true, editedArgs: { path: 5 } })],
      }),
    ).rejects.toThrow();
    const edited = await client.run(undefined, {
      resume: [
        resolved(interrupt, { approved: true, editedArgs: { path: 'b.md', content: 'edited' } }),
      ],
    });
    expect(textOf(edited)).toContain('[result Wrote 6 characters to b.md]');
  }, 30_000);

  it('asks two AskUser questions in one interrupt and checks the answers', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('ask'));
    expect(interrupt?.id).toMatch(/^ask:/);
    expect(interrupt?.reason).toBe('input_required');
    expect(interrupt?.metadata?.['parley']).toMatchObject({
      questions: [{ header: 'Color' }, { header: 'Formats' }],
    });
    const answer = (selected: string[]) => ({
      answers: [
        { question: 'Which color should the notebook use?', selected, other: null },
        {
          question: 'Which formats should an export support?',
          selected: ['Markdown', 'PDF'],
          other: null,
        },
      ],
    });
    await expect(
      client.run(undefined, { resume: [resolved(interrupt, answer(['Purple']))] }),
    ).rejects.toThrow();
    const answered = await client.run(undefined, {
      resume: [resolved(interrupt, answer(['Blue']))],
    });
    expect(textOf(answered)).toContain('Color: Blue');
    expect(textOf(answered)).toContain('Formats: Markdown, PDF');
  }, 30_000);

  it('takes an external result through resume', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('deploy'));
    expect(interrupt?.id).toMatch(/^external:/);
    expect(interrupt?.reason).toBe('parley:external_execution');
    const done = await client.run(undefined, {
      resume: [resolved(interrupt, { output: 'deployed to staging' })],
    });
    expect(textOf(done)).toContain('deploy success: deployed to staging');
  }, 30_000);

  it("runs the client's own tool: the run succeeds with the call pending, and the tool message answers it", async () => {
    const client = new Client(serve);
    const tools: Tool[] = [
      {
        name: 'greet',
        description: 'Greet someone in the page.',
        parameters: { type: 'object', properties: { name: { type: 'string' } } },
      },
    ];
    const first = await client.run('use greet {"name":"Ada"}', { tools });
    const outcome = outcomeOf(first);
    expect(outcome.type).toBe('success');
    const pending = outcome.type === 'success' ? (outcome.pendingToolCallIds ?? []) : [];
    expect(pending).toHaveLength(1);
    const started = first.find((event) => event.type === EventType.TOOL_CALL_START);
    expect(started?.['toolCallName']).toBe('greet');
    client.agent.addMessage({
      id: crypto.randomUUID(),
      role: 'tool',
      toolCallId: pending[0] ?? '',
      content: 'Greeted Ada',
    });
    const second = await client.run(undefined, { tools });
    expect(outcomeOf(second).type).toBe('success');
    expect(textOf(second)).toContain('greet success: Greeted Ada');
  }, 30_000);

  it('answers two parallel calls in two runs: the one left open is listed again', async () => {
    const client = new Client(serve);
    const [a, b] = interruptsOf(await client.run('publish one.md two.md'));
    expect(a?.id).toMatch(/^confirm:/);
    expect(b?.id).toMatch(/^confirm:/);
    const half = await client.run(undefined, {
      resume: [resolved(a, { approved: true }), { interruptId: b?.id ?? '', status: 'cancelled' }],
    });
    expect(textOf(half)).toContain('[result Published one.md]');
    expect(interruptsOf(half).map((open) => open.id)).toEqual([b?.id]);
    const rest = await client.run(undefined, { resume: [resolved(b, { approved: true })] });
    expect(textOf(rest)).toContain('[result Published two.md]');
    expect(textOf(rest)).toMatch(
      /publish success: Published one.md\npublish success: Published two.md/,
    );
  }, 30_000);

  it('stops the reply when every open interrupt is cancelled', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('note c.md'));
    const stopped = await client.run(undefined, {
      resume: [{ interruptId: interrupt?.id ?? '', status: 'cancelled' }],
    });
    expect(outcomeOf(stopped).type).toBe('cancelled');
  }, 30_000);

  it('replays a run asked for again and runs nothing twice; another input under the same run is 422', async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('note r.md'));
    const body = {
      threadId: client.agent.threadId,
      runId: crypto.randomUUID(),
      messages: client.agent.messages,
      tools: [],
      context: [],
      resume: [resolved(interrupt, { approved: true })],
    };
    const first = await (await post(serve, body)).text();
    const again = await (await post(serve, body)).text();
    expect(again).toBe(first);
    expect(first.match(/"type":"TOOL_CALL_RESULT"/g)).toHaveLength(1);
    const other = await post(serve, { ...body, messages: [] });
    expect(other.status).toBe(422);
    const messages = (await (
      await fetch(`${serve.url}/v1/sessions/${client.agent.threadId}/messages`, {
        headers: { authorization: `Bearer ${serve.token}` },
      })
    ).json()) as { messages: { content: unknown }[] };
    const results = JSON.stringify(messages).match(/"type":"tool_result"/g) ?? [];
    expect(results).toHaveLength(1);
  }, 30_000);

  it("shows another owner's thread to nobody else: 404, and nothing runs", async () => {
    const client = new Client(serve);
    const [interrupt] = interruptsOf(await client.run('note mine.md'));
    const body = {
      threadId: client.agent.threadId,
      runId: crypto.randomUUID(),
      messages: client.agent.messages,
      tools: [],
      context: [],
      resume: [resolved(interrupt, { approved: true })],
    };
    const foreign = await post(serve, body, bob);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { code: string }).code).toBe('session_not_found');
    const still = await client.run(undefined, {
      resume: [resolved(interrupt, { approved: true })],
    });
    expect(textOf(still)).toContain('[result Wrote 5 characters to mine.md]');
  }, 30_000);

  it('streams the protobuf framing when the client asks for it', async () => {
    const client = new Client(serve, 'application/vnd.ag-ui.event+proto');
    const events = await client.run('hello there');
    expect(textOf(events)).toContain('You said: hello there');
    expect(outcomeOf(events).type).toBe('success');
  }, 30_000);

  it('refuses an answer to an interrupt that expired (410) and lets the client cancel it', async () => {
    const short = await startServe(['--park-timeout', '800']);
    const client = new Client(short);
    const [interrupt] = interruptsOf(await client.run('note late.md'));
    expect(interrupt?.expiresAt).toBeDefined();
    await sleep(1_200);
    const late = await post(short, {
      threadId: client.agent.threadId,
      runId: crypto.randomUUID(),
      messages: client.agent.messages,
      tools: [],
      context: [],
      resume: [resolved(interrupt, { approved: true })],
    });
    expect(late.status).toBe(410);
    expect(((await late.json()) as { code: string }).code).toBe('reply_expired');
    // The client itself refuses to answer an expired interrupt; cancelling it goes on.
    await expect(
      client.run(undefined, { resume: [resolved(interrupt, { approved: true })] }),
    ).rejects.toThrow(/expired/);
    const cancelled = await client.run(undefined, {
      resume: [{ interruptId: interrupt?.id ?? '', status: 'cancelled' }],
    });
    expect(outcomeOf(cancelled).type).not.toBe('interrupt');
    // Settled as its expiry says (here or by the server's sweep, whichever came first).
    for (let tries = 0; tries < 50; tries += 1) {
      const summary = (await (
        await fetch(`${short.url}/v1/sessions/${client.agent.threadId}`, {
          headers: { authorization: `Bearer ${short.token}` },
        })
      ).json()) as { status: string };
      if (summary.status === 'idle') break;
      await sleep(100);
    }
    const stored = await (
      await fetch(`${short.url}/v1/sessions/${client.agent.threadId}/messages`, {
        headers: { authorization: `Bearer ${short.token}` },
      })
    ).text();
    expect(stored).toContain('write_note denied');
  }, 60_000);
});
