import path from 'node:path';
import { absolutePath, realPath } from './paths.js';
import { BoundedCache } from './bounded-cache.js';

const GLOB_CHARS = new Set(['*', '?', '[']);
const compiled = new BoundedCache<string, RegExp>(512);

/**
 * Whether a file rule (SPEC section 7: a glob on the absolute path, where `*`
 * and `**` cross `/`, `?` is one character, `[..]` a class, `\` escapes)
 * matches `real`, an absolute symlink-resolved path. A relative rule is read
 * against `cwd`; the rule's literal directory is itself symlink-resolved, so
 * `/tmp/**` still matches on systems where `/tmp` is a link. A trailing `/**`
 * also matches the directory itself (a Grep or Glob over that directory).
 */
export function matchesFileRule(ruleContent: string, real: string, cwd: string): boolean {
  const key = `${cwd}\u0000${ruleContent}`;
  let pattern = compiled.get(key);
  if (pattern === undefined) {
    pattern = compileFileRule(ruleContent, cwd);
    compiled.set(key, pattern);
  }
  return pattern.test(real);
}

/** Escapes glob characters so a literal path can be put in a rule. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

function compileFileRule(ruleContent: string, cwd: string): RegExp {
  const trimmed = ruleContent.trim();
  const absolute =
    trimmed === '~' || trimmed.startsWith('~/') || path.isAbsolute(trimmed)
      ? trimmed
      : `${cwd.replace(/\/$/, '')}/${trimmed}`;
  const firstGlob = indexOfGlob(absolute);
  if (firstGlob === -1) {
    const literal = realPath(absolutePath(cwd, unescape(absolute)));
    return new RegExp(`^${escapeRegex(literal)}(?:/.*)?$`, 's');
  }
  const cut = absolute.lastIndexOf('/', firstGlob);
  const directory = realPath(absolutePath(cwd, unescape(absolute.slice(0, cut) || '/')));
  const rest = absolute.slice(cut + 1);
  const base = directory === '/' ? '' : escapeRegex(directory);
  if (rest === '**') return new RegExp(`^${base}(?:/.*)?$`, 's');
  const tail = rest.endsWith('/**')
    ? `${globToRegex(rest.slice(0, -3))}(?:/.*)?`
    : globToRegex(rest);
  return new RegExp(`^${base}/${tail}$`, 's');
}

function indexOfGlob(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '\\') i++;
    else if (GLOB_CHARS.has(char)) return i;
  }
  return -1;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (char === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[++i] ?? '');
    } else if (char === '*') {
      while (glob[i + 1] === '*') i++;
      out += '.*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else {
      out += escapeRegex(char);
    }
  }
  return out;
}
