import type {
  AllowedBy,
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from './types.js';
import { permissionMessages as text } from './messages.js';
import { ruleNameMatches } from './rule-name.js';

/** A fresh permission context: `default` mode, no rules, no working directories. */
export function createPermissionContext(
  partial: Partial<PermissionContext> = {},
): PermissionContext {
  return {
    mode: partial.mode ?? 'default',
    workingDirectories: [...(partial.workingDirectories ?? [])],
    allowRules: [...(partial.allowRules ?? [])],
    denyRules: [...(partial.denyRules ?? [])],
    askRules: [...(partial.askRules ?? [])],
  };
}

/** The first of `rules` that covers this call of `tool`. */
function matchingRule<Input>(
  rules: PermissionRule[],
  tool: PermissionSubject<Input>,
  input: Input,
): PermissionRule | undefined {
  return rules.find(
    (rule) =>
      ruleNameMatches(rule.toolName, tool.name) &&
      (rule.ruleContent === null || tool.matchRule(rule.ruleContent, input)),
  );
}

/**
 * The tool's own answer for a call whose reads need asking: its own deny or
 * safety ask stands, and so does an allow (a rule the tool weighs itself, such
 * as a `Read` rule for a Bash read); otherwise the reads decide, so a secret
 * read stays a safety ask whatever the tool said, and an outside read keeps
 * its reason and suggestions when the tool passes through.
 */
function ownDecision(
  reads: PermissionDecision | undefined,
  checked: PermissionDecision,
): PermissionDecision {
  if (reads === undefined || checked.behavior === 'deny' || checked.bypassImmune === true) {
    return checked;
  }
  if (reads.bypassImmune === true || checked.behavior === 'passthrough') return reads;
  return checked;
}

/**
 * A tool's own allow, saying how it was allowed: by the allow rule it
 * matched, else by the mode it weighed (`every path written is granted`,
 * an edit mode). A tool that says so itself is kept.
 */
function withAllowedBy(own: PermissionDecision): PermissionDecision {
  if (own.allowedBy !== undefined) return own;
  const allowedBy: AllowedBy = own.matchedRule?.behavior === 'allow' ? 'rule' : 'mode';
  return Object.assign({}, own, { allowedBy });
}

/** The reason of a mode's denial, with why the reads needed asking when they did. */
function withMode(mode: PermissionMode, reads: PermissionDecision | undefined): string {
  const reason = reads?.decisionReason ?? reads?.message;
  return reason === undefined || reason === '' ? `mode: ${mode}` : `mode: ${mode} (${reason})`;
}

/**
 * Decides allow, deny or ask for one tool call, in the order of SPEC section 6.
 * Pure apart from `addRule`: it runs nothing, so a program can ask what would
 * happen to a call before making it.
 */
export class PermissionEngine {
  readonly context: PermissionContext;

  constructor(context: Partial<PermissionContext> = {}) {
    this.context = createPermissionContext(context);
  }

  /** Adds a rule to the allow, deny or ask list by its `behavior` (no duplicates). */
  addRule(rule: PermissionRule): void {
    const list = this.listFor(rule.behavior);
    const exists = list.some(
      (r) => r.toolName === rule.toolName && r.ruleContent === rule.ruleContent,
    );
    if (!exists) list.push({ ...rule });
  }

  /**
   * The deny rule covering this call, if any: step 1 alone, which no
   * answer overrides (a confirmed call's input, edited or not, is checked
   * against it again before it runs).
   */
  denyRuleFor<Input>(tool: PermissionSubject<Input>, input: Input): PermissionRule | undefined {
    return matchingRule(this.context.denyRules, tool, input);
  }

  /** Decides for `input` (the parsed tool input) of `tool`. */
  async check<Input>(tool: PermissionSubject<Input>, input: Input): Promise<PermissionDecision> {
    const decision = await this.decide(tool, input, this.context);
    if (decision.behavior !== 'ask' && decision.behavior !== 'passthrough') return decision;
    if (this.context.mode === 'explore' || decision.bypassImmune === true) {
      const { suggestedRules: _dropped, ...rest } = decision;
      return rest;
    }
    const suggestedRules = await this.effectiveSuggestions(tool, input, decision);
    // Assigned, not spread: V8 (Node 20) adds a new key to a spread copy very slowly.
    return Object.assign({}, decision, { suggestedRules });
  }

  private listFor(behavior: PermissionRule['behavior']): PermissionRule[] {
    if (behavior === 'allow') return this.context.allowRules;
    if (behavior === 'deny') return this.context.denyRules;
    return this.context.askRules;
  }

  private async decide<Input>(
    tool: PermissionSubject<Input>,
    input: Input,
    context: PermissionContext,
  ): Promise<PermissionDecision> {
    const name = tool.name;
    const mode = context.mode;

    // 1. deny rules
    const deny = matchingRule(context.denyRules, tool, input);
    if (deny) {
      return {
        behavior: 'deny',
        message: text.denyRule(name),
        decisionReason: text.ruleReason(deny.ruleContent, name),
        matchedRule: deny,
      };
    }
    // 2. ask rules
    const ask = matchingRule(context.askRules, tool, input);
    if (ask) {
      const reason = text.ruleReason(ask.ruleContent, name);
      if (mode === 'dont_ask') {
        return {
          behavior: 'deny',
          message: text.dontAskConverted(name),
          decisionReason: reason,
          matchedRule: ask,
          suggestedRules: tool.suggestRules(input),
        };
      }
      return { behavior: 'ask', message: text.ask(name), decisionReason: reason, matchedRule: ask };
    }
    // 3. read-only invocation, unless what it reads needs asking (Parley adds)
    let reads: PermissionDecision | undefined;
    if (tool.isReadOnly(input)) {
      reads = await tool.checkReads?.(input, context);
      if (reads === undefined) {
        return {
          behavior: 'allow',
          message: text.readOnly(name),
          decisionReason: 'read-only',
          allowedBy: 'readOnly',
        };
      }
    }
    // 4. the tool's own check
    if (mode === 'explore') {
      return {
        behavior: 'deny',
        message: text.explore(name),
        decisionReason: withMode(mode, reads),
      };
    }
    const own = ownDecision(reads, await tool.checkPermissions(input, context));
    if (own.behavior === 'allow') return withAllowedBy(own);
    if (own.behavior === 'deny') return own;
    if (own.behavior === 'ask' && own.bypassImmune === true) {
      if (mode === 'dont_ask') {
        return {
          behavior: 'deny',
          message: text.dontAskConverted(name),
          decisionReason: own.decisionReason ?? own.message,
          bypassImmune: true,
        };
      }
      return own;
    }
    // 5. allow rules
    const allow = matchingRule(context.allowRules, tool, input);
    if (allow) {
      return {
        behavior: 'allow',
        message: text.allowRule(name),
        decisionReason: text.ruleReason(allow.ruleContent, name),
        matchedRule: allow,
        allowedBy: 'rule',
      };
    }
    // 6. fallback
    switch (mode) {
      case 'bypass':
        return {
          behavior: 'allow',
          message: text.bypass(name),
          decisionReason: 'mode: bypass',
          allowedBy: 'mode',
        };
      case 'dont_ask':
        return {
          behavior: 'deny',
          message: text.dontAsk(name),
          decisionReason: withMode(mode, reads),
        };
      default:
        return {
          behavior: 'ask',
          message: own.behavior === 'ask' ? own.message : text.ask(name),
          ...(own.decisionReason === undefined ? {} : { decisionReason: own.decisionReason }),
          ...(own.suggestedRules === undefined ? {} : { suggestedRules: own.suggestedRules }),
        };
    }
  }

  /**
   * The suggestions worth offering: only if adding all of them would allow the
   * very call that asked (SPEC section 7, "Parley adds").
   */
  private async effectiveSuggestions<Input>(
    tool: PermissionSubject<Input>,
    input: Input,
    decision: PermissionDecision,
  ): Promise<PermissionRule[]> {
    const suggested = (decision.suggestedRules ?? tool.suggestRules(input)).map((rule) => ({
      ...rule,
      behavior: 'allow' as const,
    }));
    if (suggested.length === 0) return [];
    if (decision.matchedRule?.behavior === 'ask') return [];
    const trial = createPermissionContext({
      ...this.context,
      allowRules: [...this.context.allowRules, ...suggested],
    });
    const outcome = await this.decide(tool, input, trial);
    return outcome.behavior === 'allow' ? suggested : [];
  }
}
