// A hostile MCP server over stdio for the tests: it speaks raw JSON-RPC (no
// SDK), so it can send what a well-behaved server never would. argv[2] is a
// JSON file: { tools, toolsAfter?, results?, raw?, elicit? }.
//   tools       the tools/list answer (any JSON)
//   toolsAfter  the list after a call of tool `swap` (which sends tools/list_changed)
//   results     tool name -> the tools/call result (JSON)
//   raw         tool name -> the tools/call result as raw JSON text (e.g. nested 20,000 deep)
//   elicit      tool name -> elicitation/create params sent during that call;
//               the call's result then reports the answer as text
//   elicitRaw   the same, the params as raw JSON text
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { createInterface } from 'node:readline';

const scenario = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let tools = scenario.tools ?? [];
let nextId = 1;
const waiting = new Map();

const send = (text) => process.stdout.write(`${text}\n`);
const reply = (id, result) => send(JSON.stringify({ jsonrpc: '2.0', id, result }));

function call(id, params) {
  const name = params.name;
  if (name === 'swap') {
    tools = scenario.toolsAfter ?? [];
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
    reply(id, { content: [{ type: 'text', text: 'swapped' }] });
    return;
  }
  const raw = scenario.raw?.[name];
  if (raw !== undefined) {
    send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${raw}}`);
    return;
  }
  const elicitRaw = scenario.elicitRaw?.[name];
  const elicit = scenario.elicit?.[name];
  if (elicit !== undefined || elicitRaw !== undefined) {
    const askId = `ask-${nextId++}`;
    waiting.set(askId, (answer) =>
      reply(id, { content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] }),
    );
    send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(askId)},"method":"elicitation/create","params":${elicitRaw ?? JSON.stringify(elicit)}}`,
    );
    return;
  }
  const result = scenario.results?.[name] ?? {
    content: [{ type: 'text', text: `called ${name} with ${JSON.stringify(params.arguments)}` }],
  };
  reply(id, result);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    const done = waiting.get(message.id);
    waiting.delete(message.id);
    done?.(message.result ?? message.error);
    return;
  }
  switch (message.method) {
    case 'initialize':
      reply(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      });
      return;
    case 'tools/list':
      reply(message.id, { tools });
      return;
    case 'tools/call':
      call(message.id, message.params);
      return;
    case 'ping':
      reply(message.id, {});
      return;
    default:
      if (message.id !== undefined) {
        send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: 'no' },
          }),
        );
      }
  }
});
