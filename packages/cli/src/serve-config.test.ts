import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError, parseCommandLine } from './args.js';
import { loadServeConfig, mergeServeSettings, policyRules } from './serve-config.js';

const folder = mkdtempSync(join(tmpdir(), 'parley-config-'));

function configFile(name: string, content: unknown): string {
  const path = join(folder, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('parley.config.json', () => {
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reads every field, with paths relative to the file, and flags win over it', async () => {
    const path = configFile('full.json', {
      $schema: 'https://example.test/parley.config.schema.json',
      db: 'postgres://parley@db.example:5432/parley',
      schema: 'agents',
      prepare: false,
      host: '0.0.0.0',
      port: 9000,
      model: 'scripted:demo',
      tools: ['read', 'grep'],
      mode: 'explore',
      rules: [{ toolName: 'Bash', ruleContent: 'rm:*', behavior: 'deny' }],
      cwd: 'work',
      rateLimit: { requests: 100, windowSeconds: 60 },
      jwt: {
        jwksUrl: 'https://id.example/jwks.json',
        issuer: 'https://id.example',
        audience: 'parley',
      },
      leaseMs: 10_000,
      expireEveryMs: 1_000,
      graceMs: 5_000,
      bodyLimit: 65_536,
      telemetry: { endpoint: 'http://otel.example:4318', captureContent: true },
    });
    const config = await loadServeConfig(path);
    expect(config.cwd).toBe(join(folder, 'work'));
    const settings = mergeServeSettings(config, { port: 0, mode: 'default', tools: 'none' });
    expect(settings).toEqual({
      db: 'postgres://parley@db.example:5432/parley',
      schema: 'agents',
      prepare: false,
      host: '0.0.0.0',
      port: 0,
      model: 'scripted:demo',
      tools: 'none',
      mode: 'default',
      rules: [{ toolName: 'Bash', ruleContent: 'rm:*', behavior: 'deny' }],
      cwd: join(folder, 'work'),
      rateLimit: { requests: 100, windowSeconds: 60 },
      jwt: {
        jwksUrl: 'https://id.example/jwks.json',
        issuer: 'https://id.example',
        audience: 'parley',
      },
      leaseMs: 10_000,
      expireEveryMs: 1_000,
      graceMs: 5_000,
      bodyLimit: 65_536,
      telemetry: { endpoint: 'http://otel.example:4318', captureContent: true },
    });
    expect(mergeServeSettings(config, {}).tools).toBe('read,grep');
    expect(policyRules(settings.rules)).toEqual([
      { toolName: 'Bash', ruleContent: 'rm:*', behavior: 'deny', source: 'policy' },
    ]);
  });

  it('refuses a file that is not JSON, an unknown field, a bad value, and two JWT keys', async () => {
    await expect(loadServeConfig(join(folder, 'missing.json'))).rejects.toThrow(/cannot read it/);
    await expect(loadServeConfig(configFile('bad.json', '{"port": 80,'))).rejects.toThrow(
      /not JSON/,
    );
    await expect(loadServeConfig(configFile('typo.json', { prot: 80 }))).rejects.toThrow(
      UsageError,
    );
    await expect(loadServeConfig(configFile('port.json', { port: 70_000 }))).rejects.toThrow(
      /port:/,
    );
    await expect(
      loadServeConfig(configFile('db.json', { db: 'mysql://somewhere/parley' })),
    ).rejects.toThrow(/db: a postgres:\/\/ URL/);
    await expect(
      loadServeConfig(configFile('jwt.json', { jwt: { key: 's', jwksUrl: 'https://x.test/k' } })),
    ).rejects.toThrow(/exactly one of "key" and "jwksUrl"/);
    await expect(
      loadServeConfig(configFile('otel.json', { telemetry: { endpoint: 'grpc://c:4317' } })),
    ).rejects.toThrow(/telemetry\.endpoint/);
    await expect(
      loadServeConfig(configFile('otel-typo.json', { telemetry: { capture: true } })),
    ).rejects.toThrow(UsageError);
  });

  it('takes --db and --config on serve and keys, and refuses --db with --data', () => {
    expect(
      parseCommandLine(['serve', '--db', 'postgres://h/db', '--config', 'parley.config.json']),
    ).toEqual({
      kind: 'serve',
      args: { db: 'postgres://h/db', config: 'parley.config.json' },
    });
    expect(parseCommandLine(['keys', 'list', '--db', 'postgres://h/db'])).toEqual({
      kind: 'keys',
      args: { action: 'list', db: 'postgres://h/db' },
    });
    expect(() => parseCommandLine(['serve', '--db', 'postgres://h/db', '--data', 'd'])).toThrow(
      /not both/,
    );
    expect(() => parseCommandLine(['chat', '--db', 'postgres://h/db'])).toThrow(UsageError);
  });
});
