import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, Toolkit, externalExecutionResultEvent, userConfirmResultEvent } from '@parley/core';
import type {
  AgentEvent,
  AgentState,
  AuditRecord,
  ContentBlock,
  ToolResultBlock,
} from '@parley/core';
import { SqliteSessionStore } from '@parley/store-sqlite';
import { chatSessionId, settingsOf } from '../src/chat-session.js';
import type { ChatSettings } from '../src/chat-session.js';
import { confirmResult } from '../src/confirm-prompt.js';
import { demoModel } from '../src/demo-script.js';
import { demoTools } from '../src/demo-tools.js';
import { externalResult } from '../src/external-prompt.js';
import { encodeSession } from '../src/session-file.js';
import { waitingCalls } from '../src/waiting-calls.js';
import { startFakeOpenAI } from './fake-openai.js';
import { TmuxTerminal, occurrences, parleyCommand, tmuxAvailable } from './tmux.js';

/*
 * End-to-end: the real `parley` binary in a pseudo terminal (tmux), driven
 * by keystrokes as a person would, with assertions on the screen and on the
 * session saved in its SQLite file (read through SqliteSessionStore). Without tmux these skip, except in CI, where they must run.
 */

const available = tmuxAvailable();
if (!available && process.env['CI'] === undefined) {
  console.log(
    'Skipping the tmux tests of parley chat: tmux is not installed (apt-get install -y tmux).',
  );
}
const suite = available || process.env['CI'] !== undefined ? describe : describe.skip;

const terminals: TmuxTerminal[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.close();
  for (const directory of directories.splice(0))
    await rm(directory, { recursive: true, force: true });
});

async function workspace(): Promise<{
  directory: string;
  session: string;
  env: NodeJS.ProcessEnv;
}> {
  const directory = await mkdtemp(join(tmpdir(), 'parley-chat-e2e-'));
  directories.push(directory);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'NO_COLOR', 'FORCE_COLOR', 'TMUX'])
    delete env[name];
  Object.assign(env, {
    XDG_STATE_HOME: join(directory, 'state'),
    TMPDIR: directory,
    PARLEY_DEMO_PACE_MS: '0',
    TERM: 'xterm-256color',
  });
  return { directory, session: join(directory, 'session.sqlite'), env };
}

function terminal(env: NodeJS.ProcessEnv, cwd: string, width = 120, height = 50): TmuxTerminal {
  const made = new TmuxTerminal({ width, height, cwd, env });
  terminals.push(made);
  return made;
}

type SavedSession = { state: AgentState; settings: ChatSettings | undefined; audit: AuditRecord[] };

/** The session as stored in the SQLite file, with its console settings and audit trail. */
async function readSession(path: string): Promise<SavedSession> {
  const store = new SqliteSessionStore({ path });
  try {
    const loaded = await store.load(chatSessionId);
    if (loaded === undefined) throw new Error(`No session in ${path}`);
    const audit = await store.listAudit(chatSessionId);
    return { state: loaded.state, settings: settingsOf(loaded.state, path), audit };
  } finally {
    await store.close();
  }
}

function blocksOf(file: SavedSession): ContentBlock[] {
  return file.state.context.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content,
  );
}

function result(file: SavedSession, id: string): ToolResultBlock | undefined {
  return blocksOf(file).find(
    (block): block is ToolResultBlock => block.type === 'tool_result' && block.id === id,
  );
}

// Each test starts the command from source (TypeScript through tsx) once or twice: give it time.
suite('parley chat in a terminal', { timeout: 180_000 }, () => {
  it('offers the demo without an API key, and a person clicks through all of it', async () => {
    const { directory, session, env } = await workspace();
    const t = terminal(env, directory);
    t.start([...parleyCommand, 'chat', '--session', session]);

    await t.waitFor('No API key found');
    await t.waitFor('Run the scripted demo instead? (scripted demo — no model is called)');
    t.press('Enter');
    await t.waitFor('(scripted demo — no model is called) · mode default');
    await t.waitFor('› you');
    t.type('hi');
    t.press('Enter');

    // 1. A confirmation: Yes.
    await t.waitFor('Allow write_note?');
    const first = t.screen();
    expect(first).toContain(
      '● write_note(path: "welcome.md", content: "Hello from the Parley demo.")',
    );
    expect(first).toContain('│   "path": "welcome.md",');
    expect(first).toContain('│ suggested rule: write_note (every call)');
    expect(first).toContain('Yes, and always allow write_note (every call)');
    t.press('Enter');

    // 2. A denial with a reason.
    await t.waitFor('Allow delete_notes?');
    t.press('Down', 'Down', 'Enter');
    await t.waitFor('Reason (optional, the model reads it):');
    t.type('keep my notes');
    t.press('Enter');
    await t.waitFor('Your reason reached me: "keep my notes"');

    // 3. "Always allow": the second write then runs without a prompt.
    await t.waitFor('Allow write_note?', { count: 2 });
    t.press('Down', 'Enter');
    await t.waitFor('⎿ write_note ✓ Wrote 15 characters to ideas.md');

    // 4. An external tool: the person types the result.
    await t.waitFor('How did deploy go?');
    expect(t.screen()).toContain('deploy is yours to run');
    t.press('Enter');
    await t.waitFor('Result (the model reads it):');
    t.type('live at staging.example');
    t.press('Enter');
    await t.waitFor('you reported: "live at staging.example"');

    // 5. AskUser: a chip, the context, previews beside the options, then a multi-select with Other.
    const asked = await t.waitFor('What should the notebook get next?');
    expect(asked).toContain(' Next step   1 of 2');
    expect(asked).toContain('│ The notebook has welcome.md');
    expect(asked).toMatch(
      /❯ 1\. Search \(Recommended\)\s+Find notes by a word\s+│ > search deploy/,
    );
    t.press('Down');
    await t.waitFor(/2\. Tags\s+Group notes by #tag\s+│ tags: #work #soon/);
    t.press('Enter');
    await t.waitFor('Which formats should an export support?');
    t.press('Space', 'Down', 'Down', 'Down', 'Space', 'Enter');
    await t.waitFor('Your answer:');
    t.type('EPUB');
    t.press('Enter');
    const end = await t.waitFor('That was the tour');
    expect(end).toContain('You chose: Tags; Markdown + EPUB.');
    expect(occurrences(end, 'needs your permission')).toBe(3);

    t.type('/exit');
    t.press('Enter');
    await t.waitFor('[exit 0]');
    expect(t.screen()).toContain(`Resume with: parley chat --session ${session}`);

    const saved = await readSession(session);
    expect(saved.settings?.model).toBe('scripted:demo');
    expect(saved.state.reply).toBeNull();
    expect(result(saved, 'demo-1')?.state).toBe('success');
    expect(result(saved, 'demo-2')).toMatchObject({
      state: 'denied',
      output:
        '<system-reminder>The execution of tool "delete_notes" is denied by user! Reason: keep my notes</system-reminder>',
    });
    expect(result(saved, 'demo-3b')?.state).toBe('success');
    expect(saved.state.permission.allowRules.map((rule) => rule.toolName)).toEqual(['write_note']);
    expect(result(saved, 'demo-4')).toMatchObject({
      state: 'success',
      output: [{ type: 'text', text: 'live at staging.example' }],
    });
    expect(result(saved, 'demo-5')?.metadata).toEqual({
      answers: [
        { question: 'What should the notebook get next?', selected: ['Tags'], other: null },
        {
          question: 'Which formats should an export support?',
          selected: ['Markdown'],
          other: 'EPUB',
        },
      ],
    });
  });

  it('edits an input, refuses without a reason, and reports a failed external run', async () => {
    const { directory, session, env } = await workspace();
    const t = terminal(env, directory);
    t.start([...parleyCommand, 'chat', '--model', 'scripted:demo', '--session', session]);
    await t.waitFor('› you');
    t.type('hi');
    t.press('Enter');
    await t.waitFor('Allow write_note?');
    t.press('Down', 'Down', 'Down', 'Enter');
    await t.waitFor('Input (JSON): {"path":"welcome.md","content":"Hello from the Parley demo."}');
    for (let i = 0; i < '."}'.length; i++) t.press('BSpace');
    t.type(', edited."}');
    t.press('Enter');
    await t.waitFor('⎿ write_note ✓ Wrote 35 characters to welcome.md');

    await t.waitFor('Allow delete_notes?');
    t.press('Enter');
    await t.waitFor('⎿ delete_notes ✓ Deleted 1 note');
    await t.waitFor('Deleted (they were only demo notes).');

    await t.waitFor('Allow write_note?', { count: 2 });
    t.press('Down', 'Down', 'Enter');
    await t.waitFor('Reason (optional, the model reads it):');
    t.press('Enter');
    await t.waitFor('Allow write_note?', { count: 3 });
    t.press('Down', 'Down', 'Enter');
    await t.waitFor('Reason (optional, the model reads it):', { count: 2 });
    t.press('Enter');
    await t.waitFor('0 of the 2 notes written.');

    await t.waitFor('How did deploy go?');
    t.press('Down', 'Enter');
    await t.waitFor('Error (the model reads it):');
    t.type('the build timed out');
    t.press('Enter');
    await t.waitFor('⎿ deploy ✗ the build timed out');
    await t.waitFor('The deploy did not go through: "the build timed out". Noted.');

    const saved = await readSession(session);
    const edited = blocksOf(saved).find(
      (block) => block.type === 'tool_call' && block.id === 'demo-1',
    );
    expect(edited).toMatchObject({
      input: '{"path":"welcome.md","content":"Hello from the Parley demo, edited."}',
    });
    expect(result(saved, 'demo-3a')).toMatchObject({
      state: 'denied',
      output:
        '<system-reminder>The execution of tool "write_note" is denied by user!</system-reminder>',
    });
    expect(result(saved, 'demo-4')).toMatchObject({ state: 'error' });
  });

  it('Ctrl-C at a prompt parks the reply and saves; --session later resumes it there', async () => {
    const { directory, session, env } = await workspace();
    const t = terminal(env, directory);
    t.start([...parleyCommand, 'chat', '--model', 'scripted:demo', '--session', session]);
    await t.waitFor('› you');
    t.type('hi');
    t.press('Enter');
    await t.waitFor('Allow write_note?');
    t.press('C-c');
    await t.waitFor('[exit 0]');
    expect(t.screen()).toContain('The reply is parked, waiting for you. Session saved.');
    expect(t.screen()).toContain(`Resume with: parley chat --session ${session}`);
    const parked = await readSession(session);
    expect(parked.state.reply?.status).toBe('parked');
    expect(result(parked, 'demo-1')).toBeUndefined();

    // A new process, no --model: the session remembers it and shows the same prompt.
    const again = terminal(env, directory);
    again.start([...parleyCommand, 'chat', '--session', session]);
    await again.waitFor('Resuming: the reply is waiting for you.');
    await again.waitFor('Allow write_note?');
    expect(again.screen()).not.toContain('No API key found');
    again.press('Enter');
    await again.waitFor('Allow delete_notes?');
    const resumed = await readSession(session);
    expect(result(resumed, 'demo-1')?.state).toBe('success');
    expect(resumed.state.reply?.status).toBe('parked');
    // The audit trail records who confirmed write_note at the prompt, and that it ran.
    const trail = resumed.audit.filter((record) => record.toolCallId === 'demo-1');
    expect(trail.map((record) => record.decision)).toEqual(['asked', 'confirmed', 'executed']);
    expect(trail[1]).toMatchObject({ toolName: 'write_note', approver: userInfo().username });
  });

  it('Ctrl-C while the model streams interrupts the reply, not the program', async () => {
    const { directory, session, env } = await workspace();
    const t = terminal(env, directory);
    // Slow the demo down: about 2 s of "thinking", then 80 ms per chunk.
    t.start([
      'env',
      'PARLEY_DEMO_PACE_MS=80',
      ...parleyCommand,
      'chat',
      '--model',
      'scripted:demo',
      '--session',
      session,
    ]);
    await t.waitFor('› you');
    t.type('hi');
    t.press('Enter');
    await t.waitFor('thinking…');
    t.press('C-c');
    await t.waitFor('◼ Interrupted.');
    await t.waitFor('› you', { count: 2 });
    t.type('/exit');
    t.press('Enter');
    await t.waitFor('[exit 0]');
    const saved = await readSession(session);
    expect(saved.state.reply).toBeNull();
    expect(saved.state.context.at(-1)?.finishedReason).toBe('interrupted');
  });

  it('puts AskUser previews beside the options when wide, below them when narrow', async () => {
    const { directory, env } = await workspace();
    // A JSON session of an earlier version: copied into a SQLite file beside it.
    const json = join(directory, 'old.json');
    const session = join(directory, 'old.sqlite');
    await writeFile(json, await parkedAtAskUser(directory));

    const wide = terminal(env, directory, 120);
    wide.start([...parleyCommand, 'chat', '--session', json]);
    await wide.waitFor(`Copied it into ${session} (the JSON file is left as it was).`);
    const beside = await wide.waitFor('What should the notebook get next?');
    expect(beside).toMatch(/1\. Search \(Recommended\)\s+Find notes by a word\s+│ > search deploy/);
    wide.close();

    const narrow = terminal(env, directory, 50);
    narrow.start([...parleyCommand, 'chat', '--session', session]);
    await narrow.waitFor('What should the notebook get next?');
    const below = await narrow.waitFor('│ > search deploy');
    const lines = below.split('\n');
    const option = lines.findIndex((line) => line.includes('1. Search (Recommended)'));
    const preview = lines.findIndex((line) => line.includes('│ > search deploy'));
    expect(option).toBeGreaterThanOrEqual(0);
    expect(preview).toBeGreaterThan(option + 3);
    expect(lines[option]).not.toContain('│');

    // "Other" with free text, then a multi-select that needs at least one choice.
    narrow.press('4', 'Enter');
    await narrow.waitFor('Your answer:');
    narrow.type('A calendar');
    narrow.press('Enter');
    await narrow.waitFor('Which formats should an export support?');
    narrow.press('Down', 'Space', 'Enter');
    await narrow.waitFor('You chose: A calendar; HTML.');
    const saved = await readSession(session);
    expect(result(saved, 'demo-5')?.metadata).toEqual({
      answers: [
        { question: 'What should the notebook get next?', selected: [], other: 'A calendar' },
        { question: 'Which formats should an export support?', selected: ['HTML'], other: null },
      ],
    });
  });
});

/** A demo session parked at its AskUser question, made in-process, as an earlier version's JSON file. */
async function parkedAtAskUser(directory: string): Promise<string> {
  const agent = new Agent({
    model: demoModel({ chunkMs: 0, firstChunkMs: 0 }),
    toolkit: new Toolkit(demoTools(directory)),
  });
  const drain = async (stream: AsyncIterable<AgentEvent>): Promise<void> => {
    for await (const _ of stream) {
      // only the state matters here
    }
  };
  await drain(agent.replyStream('hi'));
  for (;;) {
    const waiting = waitingCalls(agent.state)[0];
    if (waiting === undefined || waiting.toolCall.name === 'AskUser') break;
    const event =
      waiting.kind === 'confirm'
        ? userConfirmResultEvent({
            replyId: waiting.replyId,
            confirmResults: [confirmResult('always', waiting.toolCall)],
          })
        : externalExecutionResultEvent({
            replyId: waiting.replyId,
            executionResults: [externalResult(waiting.toolCall, 'success', 'ok')],
          });
    await drain(agent.replyStream(event));
  }
  return encodeSession({
    settings: { model: 'scripted:demo', tools: [], cwd: directory },
    state: agent.state,
  });
}

suite('parley chat with a real model adapter', { timeout: 180_000 }, () => {
  it('runs a built-in tool after the person confirms it', async () => {
    const server = await startFakeOpenAI((request) => {
      const tool = request.messages.find((message) => message.role === 'tool');
      if (tool !== undefined) return { text: `Done: ${JSON.stringify(tool.content)}` };
      return {
        toolCalls: [
          {
            id: 'call_w',
            name: 'Write',
            arguments: JSON.stringify({ file_path: 'hello.txt', content: 'hi there' }),
          },
        ],
      };
    });
    try {
      const { directory, session, env } = await workspace();
      const t = terminal(env, directory);
      const spec = `openai-compatible:${server.url}#fake`;
      t.start([
        ...parleyCommand,
        'chat',
        '--model',
        spec,
        '--tools',
        'write',
        '--session',
        session,
      ]);
      await t.waitFor('tools Write, AskUser');
      t.type('write a file');
      t.press('Enter');
      await t.waitFor('Allow Write?');
      expect(t.screen()).toContain('│   "file_path": "hello.txt",');
      t.press('Enter');
      await t.waitFor('Done: ');
      expect(await readFile(join(directory, 'hello.txt'), 'utf8')).toBe('hi there');
    } finally {
      await server.close();
    }
  });

  it('talks to an OpenAI-compatible server, and answers its AskUser call', async () => {
    const question = {
      questions: [
        {
          header: 'Color',
          question: 'Which color should the site use?',
          options: [
            { label: 'Green', description: 'calm' },
            { label: 'Blue', description: 'trustworthy' },
          ],
        },
      ],
    };
    const server = await startFakeOpenAI((request) => {
      const tool = request.messages.find((message) => message.role === 'tool');
      if (tool === undefined) {
        return {
          text: 'I need a decision first.',
          toolCalls: [{ id: 'call_1', name: 'AskUser', arguments: JSON.stringify(question) }],
        };
      }
      return { text: `Noted: ${JSON.stringify(tool.content)}.` };
    });
    try {
      const { directory, session, env } = await workspace();
      const t = terminal(env, directory);
      const spec = `openai-compatible:${server.url}#fake`;
      t.start([...parleyCommand, 'chat', '--model', spec, '--tools', 'none', '--session', session]);
      await t.waitFor(`parley chat · ${spec} · mode default`);
      expect(t.screen()).not.toContain('scripted demo');
      t.type('pick a color');
      t.press('Enter');
      await t.waitFor('I need a decision first.');
      await t.waitFor('Which color should the site use?');
      expect(t.screen()).toContain('● AskUser(1 question: Color)');
      t.press('Down', 'Enter');
      await t.waitFor('Noted: "Color: Blue".');
      expect(server.requests).toHaveLength(2);
      const saved = await readSession(session);
      expect(saved.settings).toMatchObject({ model: spec, tools: [], mode: 'default' });
      expect(saved.state.reply).toBeNull();
    } finally {
      await server.close();
    }
  });
});
