// Which modules a `parley` process loads, recorded rather than assumed: a
// module preloaded with NODE_OPTIONS=--import registers a loader hook that
// writes every URL the ESM loader resolves to a log file, and at exit adds
// every CommonJS module in require.cache (the OpenTelemetry packages are
// CommonJS). Used by the telemetry-loading and packed-install tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const hooks = `import { appendFileSync } from 'node:fs';
let log = '';
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const record = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const log = process.env.PARLEY_MODULE_LOG;
register(new URL('./hooks.mjs', import.meta.url), { data: { log } });
process.on('exit', () => {
  appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');
});
`;

/** An OpenTelemetry SDK module: anything from OpenTelemetry but the API the libraries use. */
export const sdkModule = /@opentelemetry[/\\](?!api[/\\])/;

/** A recorder in `folder`: `env` for the process to record, `modules()` to read what it loaded. */
export function moduleRecorder(
  folder: string,
  name: string,
): { env: Record<string, string>; modules: () => string[] } {
  writeFileSync(join(folder, 'hooks.mjs'), hooks);
  writeFileSync(join(folder, 'record.mjs'), record);
  const log = join(folder, `${name}.modules.log`);
  writeFileSync(log, '');
  return {
    env: {
      PARLEY_MODULE_LOG: log,
      NODE_OPTIONS: `--import ${pathToFileURL(join(folder, 'record.mjs')).href}`,
    },
    modules: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** `env` without OpenTelemetry's variables and NODE_OPTIONS. */
export function withoutOtel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('OTEL_') && key !== 'NODE_OPTIONS') kept[key] = value;
  }
  return kept;
}
