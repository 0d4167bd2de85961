import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the hostile stdio server does (see hostile-server.mjs). */
export type HostileScenario = {
  tools: unknown[];
  toolsAfter?: unknown[];
  results?: Record<string, unknown>;
  raw?: Record<string, string>;
  elicit?: Record<string, unknown>;
  elicitRaw?: Record<string, string>;
};

const script = fileURLToPath(new URL('./hostile-server.mjs', import.meta.url));

/** A stdio server entry that runs the hostile server with this scenario. */
export function hostileServer(scenario: HostileScenario, extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-hostile-'));
  const file = join(dir, 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  return { command: process.execPath, args: [script, file], ...extra };
}

/** A tool definition with an object input schema. */
export function toolDef(name: string, inputSchema: Record<string, unknown> = {}, extra = {}) {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', ...inputSchema },
    ...extra,
  };
}
