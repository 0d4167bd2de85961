import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { PermissionRule } from '@parley/core';
import { z } from 'zod';
import type { ServeArgs } from './args.js';
import { UsageError, permissionModes } from './args.js';

const millis = z.number().int().min(0);

/**
 * The JWT settings of a config file: exactly one of `key` (a shared secret,
 * or a PEM public key) and `jwksUrl`; `issuer` and `audience` must match
 * the token's when given; `rolesClaim` names the claim with the roles;
 * `requireExp` (default true) and `maxTokenAge` (seconds, default a day)
 * as `jwtAuth` takes them.
 */
const jwtSchema = z
  .strictObject({
    key: z.string().min(1).optional(),
    jwksUrl: z.url().optional(),
    issuer: z.string().min(1).optional(),
    audience: z.string().min(1).optional(),
    rolesClaim: z.string().min(1).optional(),
    requireExp: z.boolean().optional(),
    maxTokenAge: z.number().int().positive().optional(),
  })
  .refine((jwt) => (jwt.key === undefined) !== (jwt.jwksUrl === undefined), {
    message: 'give exactly one of "key" and "jwksUrl"',
  });

/**
 * `parley.config.json`, as `parley serve --config FILE` reads it. Every
 * field is optional; a command-line flag wins over the file. Relative paths
 * (`data`, `cwd`) are relative to the file's folder. Unknown fields are
 * refused, so a typo is not silently ignored.
 */
export const serveConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  db: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional(),
  schema: z.string().min(1).max(63).optional(),
  prepare: z.boolean().optional(),
  data: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  model: z.string().min(1).optional(),
  tools: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  mode: z.enum(permissionModes).optional(),
  rules: z
    .array(
      z.strictObject({
        toolName: z.string().min(1),
        ruleContent: z.string().min(1).nullable().optional(),
        behavior: z.enum(['allow', 'deny', 'ask']),
      }),
    )
    .optional(),
  cwd: z.string().min(1).optional(),
  rateLimit: z
    .strictObject({
      requests: z.number().int().positive(),
      windowSeconds: z.number().int().positive(),
    })
    .optional(),
  jwt: jwtSchema.optional(),
  leaseMs: z.number().int().positive().optional(),
  expireEveryMs: millis.optional(),
  graceMs: millis.optional(),
  bodyLimit: z.number().int().positive().optional(),
  streamAuthCheckMs: millis.optional(),
  streamLimits: z
    .strictObject({
      perPrincipal: z.number().int().positive().optional(),
      total: z.number().int().positive().optional(),
    })
    .optional(),
  maxJsonDepth: z.number().int().positive().optional(),
  /**
   * OpenTelemetry: `endpoint` (an OTLP/HTTP base URL, as
   * `OTEL_EXPORTER_OTLP_ENDPOINT`, which wins when set) switches the SDK
   * on; `captureContent` puts prompts, tool inputs and results on spans.
   */
  telemetry: z
    .strictObject({
      endpoint: z.url({ protocol: /^https?$/ }).optional(),
      captureContent: z.boolean().optional(),
    })
    .optional(),
});

/**
 * The operator's rules of a config file, as every session's agent holds
 * them: source `'policy'`, which no answer or route can revoke.
 */
export function policyRules(rules: ServeConfig['rules']): PermissionRule[] {
  return (rules ?? []).map((rule) => ({
    toolName: rule.toolName,
    ruleContent: rule.ruleContent ?? null,
    behavior: rule.behavior,
    source: 'policy',
  }));
}

/** A config file's content, checked. */
export type ServeConfig = z.infer<typeof serveConfigSchema>;

/** What `parley serve` runs with: the flags over the file. */
export type ServeSettings = Omit<ServeConfig, '$schema' | 'tools'> & { tools?: string };

/** Reads and checks a config file; any problem is a `UsageError` naming the file and field. */
export async function loadServeConfig(path: string): Promise<ServeConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`--config ${path}: cannot read it (${reason}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`--config ${path}: not JSON (${reason}).`);
  }
  const parsed = serveConfigSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.');
      return `${field === '' ? '(file)' : field}: ${issue.message}`;
    });
    throw new UsageError(`--config ${path}: ${problems.join('; ')}.`);
  }
  const folder = dirname(resolve(path));
  const config = parsed.data;
  return {
    ...config,
    ...(config.data === undefined ? {} : { data: resolve(folder, config.data) }),
    ...(config.cwd === undefined ? {} : { cwd: resolve(folder, config.cwd) }),
  };
}

/** The settings of a run: each flag given on the command line over the same field of the file. */
export function mergeServeSettings(config: ServeConfig, args: ServeArgs): ServeSettings {
  const { $schema: _schema, tools, ...rest } = config;
  const settings: ServeSettings = { ...rest };
  if (tools !== undefined) settings.tools = Array.isArray(tools) ? tools.join(',') : tools;
  if (args.db !== undefined) settings.db = args.db;
  if (args.data !== undefined) settings.data = args.data;
  if (args.host !== undefined) settings.host = args.host;
  if (args.port !== undefined) settings.port = args.port;
  if (args.model !== undefined) settings.model = args.model;
  if (args.tools !== undefined) settings.tools = args.tools;
  if (args.mode !== undefined) settings.mode = args.mode;
  if (args.cwd !== undefined) settings.cwd = args.cwd;
  return settings;
}
