import { BoundedCache } from '../shared/bounded-cache.js';

/** A compiled Bash rule: tests one sub-command's canonical text. */
type CompiledRule = (text: string) => boolean;

const compiled = new BoundedCache<string, CompiledRule>(512);

/**
 * Whether a Bash rule matches one sub-command's text (SPEC section 7):
 * - `prefix:*` matches the text equal to `prefix` or starting with `prefix `
 *   (`git:*` matches `git status`, not `github`);
 * - a pattern with an unescaped `*` is a full-match wildcard (`git * push`);
 * - anything else is a substring.
 * `\*` is a literal star and `\\` a literal backslash in all three.
 */
export function bashRuleMatches(ruleContent: string, text: string): boolean {
  let rule = compiled.get(ruleContent);
  if (rule === undefined) {
    rule = compile(ruleContent.trim());
    compiled.set(ruleContent, rule);
  }
  return rule(text);
}

/** Escapes `*` and `\` so a literal text can be put in a rule. */
export function escapeRuleText(text: string): string {
  return text.replace(/[\\*]/g, (char) => `\\${char}`);
}

/** A piece of a rule: literal text, or a `*` wildcard. */
type Token = { literal: string } | { wildcard: true };

function compile(content: string): CompiledRule {
  const tokens = tokenize(content);
  const last = tokens.at(-1);
  const beforeLast = tokens.at(-2);
  const isPrefix =
    last !== undefined &&
    'wildcard' in last &&
    beforeLast !== undefined &&
    'literal' in beforeLast &&
    beforeLast.literal.endsWith(':');
  if (isPrefix) {
    const prefixTokens: Token[] = [
      ...tokens.slice(0, -2),
      { literal: beforeLast.literal.slice(0, -1) },
    ];
    if (!prefixTokens.some((token) => 'wildcard' in token)) {
      const prefix = prefixTokens
        .map((token) => ('literal' in token ? token.literal : ''))
        .join('');
      return (text) => text === prefix || text.startsWith(`${prefix} `);
    }
    const regex = new RegExp(`^${toRegex(prefixTokens)}(?: .*)?$`, 's');
    return (text) => regex.test(text);
  }
  if (tokens.some((token) => 'wildcard' in token)) {
    const regex = new RegExp(`^${toRegex(tokens)}$`, 's');
    return (text) => regex.test(text);
  }
  const needle = tokens.map((token) => ('literal' in token ? token.literal : '')).join('');
  return (text) => needle !== '' && text.includes(needle);
}

function tokenize(content: string): Token[] {
  const tokens: Token[] = [];
  let literal = '';
  for (let i = 0; i < content.length; i++) {
    const char = content[i] ?? '';
    const next = content[i + 1];
    if (char === '\\' && (next === '*' || next === '\\')) {
      literal += next;
      i++;
    } else if (char === '*') {
      if (literal !== '') tokens.push({ literal });
      literal = '';
      tokens.push({ wildcard: true });
    } else {
      literal += char;
    }
  }
  if (literal !== '') tokens.push({ literal });
  return tokens;
}

function toRegex(tokens: readonly Token[]): string {
  return tokens
    .map((token) =>
      'literal' in token ? token.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : '.*',
    )
    .join('');
}
