import type { PermissionRule } from '../message/index.js';

export type { PermissionRule };

/** How much the agent may do without asking (SPEC section 6). */
export type PermissionMode = 'default' | 'accept_edits' | 'explore' | 'bypass' | 'dont_ask';

/** `passthrough`: the tool has no opinion; the engine goes on to rules and the fallback. */
export type PermissionBehavior = 'allow' | 'deny' | 'ask' | 'passthrough';

/**
 * How an allowed call was allowed: `readOnly` (proved read-only, SPEC
 * section 6 step 3), `rule` (an allow rule), `mode` (the mode, or the
 * tool's own check under it, let it run unasked) or `user` (a person's
 * yes). A tool that limits what a call may do (the Bash sandbox) takes the
 * strictest limit this permits, whatever it reads of the call again.
 */
export type AllowedBy = 'readOnly' | 'rule' | 'mode' | 'user';

/**
 * What the engine (or a tool's own check) decided. `bypassImmune` marks a
 * safety ask: no rule and no mode can turn it into an allow.
 * `matchedRule` names the rule that decided, when one did; `allowedBy`, on
 * an allow from the engine, says how the call was allowed.
 */
export type PermissionDecision = {
  behavior: PermissionBehavior;
  message: string;
  decisionReason?: string;
  suggestedRules?: PermissionRule[];
  bypassImmune?: boolean;
  matchedRule?: PermissionRule;
  allowedBy?: AllowedBy;
};

/** The permission state of a session: the mode, where the agent works, and the rules. */
export type PermissionContext = {
  mode: PermissionMode;
  workingDirectories: string[];
  allowRules: PermissionRule[];
  denyRules: PermissionRule[];
  askRules: PermissionRule[];
};

/**
 * What the engine needs of a tool. Every `Tool` is one; the engine needs no
 * more, so a program can ask about a tool without an agent.
 */
export interface PermissionSubject<Input = unknown> {
  readonly name: string;
  isReadOnly(input: Input): boolean;
  checkPermissions(
    input: Input,
    context: PermissionContext,
  ): PermissionDecision | Promise<PermissionDecision>;
  matchRule(ruleContent: string | null, input: Input): boolean;
  suggestRules(input: Input): PermissionRule[];
  /**
   * For a read-only call: undefined when what it reads is harmless, else the
   * ask its reads need (outside the working directories; a safety ask with
   * `bypassImmune` for a secret). Such a call is not allowed as read-only at
   * step 3 and goes on to the tool's own check (SPEC section 6, Parley adds).
   * Leaving it out keeps every read-only call harmless, as in AgentScope.
   */
  checkReads?(
    input: Input,
    context: PermissionContext,
  ): PermissionDecision | undefined | Promise<PermissionDecision | undefined>;
}
