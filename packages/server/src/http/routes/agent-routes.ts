import { createRoute, z } from '@hono/zod-openapi';
import type { SessionsOptions } from '@parley/core';
import type { ServerApp, ServerContext } from '../server-context.js';
import { visibleSession } from '../server-context.js';
import { problemResponses, problemSchema, sessionParamsSchema } from '../schemas.js';

const toolsSchema = z
  .object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        inputSchema: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .openapi('Tools');

const ruleSchema = z
  .object({
    toolName: z.string(),
    ruleContent: z.string().nullable(),
    behavior: z.enum(['allow', 'deny', 'ask']),
    source: z.string(),
  })
  .openapi('PermissionRule');

const permissionSchema = z
  .object({ mode: z.string(), rules: z.array(ruleSchema) })
  .openapi('SessionPermission');

const revokeBodySchema = z
  .object({
    toolName: z.string().min(1).max(200),
    ruleContent: z.string().max(4000).nullable(),
    behavior: z.enum(['allow', 'deny', 'ask']),
  })
  .openapi('RevokeRuleBody');

const revokeRule = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/permission/revoke',
  summary:
    "Takes a rule back from the session's permission context (an 'always allow' a person added); the operator's rules stay (403)",
  request: {
    params: sessionParamsSchema,
    body: { required: true, content: { 'application/json': { schema: revokeBodySchema } } },
  },
  responses: {
    200: {
      description: 'The rule is gone; the mode and the rules left',
      content: { 'application/json': { schema: permissionSchema } },
    },
    ...problemResponses,
    403: {
      description: "The rule is the operator's (source 'policy', or the agent's own): it stays",
      content: { 'application/problem+json': { schema: problemSchema } },
    },
  },
});

const getTools = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/tools',
  summary: "The session's tools with their input's JSON Schema (what an edited input must match)",
  request: { params: sessionParamsSchema },
  responses: {
    200: { description: 'The tools', content: { 'application/json': { schema: toolsSchema } } },
    ...problemResponses,
  },
});

const getPermission = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/permission',
  summary: "The session's permission mode and the rules people added to it",
  request: { params: sessionParamsSchema },
  responses: {
    200: {
      description: 'The mode and the rules',
      content: { 'application/json': { schema: permissionSchema } },
    },
    ...problemResponses,
  },
});

/**
 * Registers what a client needs to render a session's asks: its tools'
 * input schemas (the web UI's edit form is generated from them and
 * validated against them before sending) and its permission mode and rules,
 * and the one write among them: revoking a rule, which whoever may see the
 * session (its owner, an approver) may do, as they may add one by
 * answering; the audit trail says who did.
 */
export function registerAgentRoutes(
  app: ServerApp,
  context: ServerContext,
  agent: SessionsOptions['agent'],
): void {
  app.openapi(getTools, async (c) => {
    const { id } = c.req.valid('param');
    await visibleSession(context, c.get('principal'), id);
    const options = typeof agent === 'function' ? agent(id) : agent;
    return c.json({ tools: options.toolkit?.schemas() ?? [] }, 200);
  });

  const permissionOf = async (id: string) => {
    const permission = (await context.store.load(id))?.state.permission;
    const options = typeof agent === 'function' ? agent(id) : agent;
    const rules =
      permission === undefined
        ? []
        : [...permission.allowRules, ...permission.denyRules, ...permission.askRules];
    return { mode: permission?.mode ?? options.permission?.mode ?? 'default', rules };
  };

  app.openapi(getPermission, async (c) => {
    const { id } = c.req.valid('param');
    await visibleSession(context, c.get('principal'), id);
    return c.json(await permissionOf(id), 200);
  });

  app.openapi(revokeRule, async (c) => {
    const { id } = c.req.valid('param');
    const principal = c.get('principal');
    await visibleSession(context, principal, id);
    await context.sessions.revokeRule(id, c.req.valid('json'), { approver: principal.id });
    return c.json(await permissionOf(id), 200);
  });
}
