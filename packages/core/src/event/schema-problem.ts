import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** How many problems besides the first a message lists. */
const MORE_SHOWN = 3;

/** Where a value failed its schema (dotted path, '' for the root) and what was wrong there. */
export type SchemaProblem = { path: string; problem: string };

/**
 * Turns a zod error into one problem a person can act on: the dotted path of
 * the bad field (e.g. `confirmResults.0.toolCall.input`) and what was expected
 * versus received. Unions are resolved to the branch that got furthest, so a
 * bad block inside `output: string | Block[]` is reported at the block's field
 * rather than at `output`. Parse with `{ reportInput: true }` to name the
 * received values.
 */
export function describeSchemaProblem(error: z.ZodError): SchemaProblem {
  const [first, ...rest] = error.issues.map((issue) => describeIssue(issue, []));
  if (first === undefined) return { path: '', problem: 'invalid value' };
  // The path names the first problem; the others are listed so that, say, a
  // missing `replyId` and an unknown `replyID` are seen together.
  const shown = rest.slice(0, MORE_SHOWN).map(({ path, problem }) => {
    const where = formatPath(path);
    return `; also ${where === '' ? '(root)' : where}: ${problem}`;
  });
  const hidden = rest.length - shown.length;
  const more = hidden > 0 ? `; and ${hidden} more problem${hidden === 1 ? '' : 's'}` : '';
  return { path: formatPath(first.path), problem: first.problem + shown.join('') + more };
}

/** A dotted path: `['confirmResults', 0, 'toolCall']` → `confirmResults.0.toolCall`. */
function formatPath(path: Path): string {
  return path.map((key) => String(key)).join('.');
}

function describeIssue(issue: Issue, prefix: Path): { path: Path; problem: string } {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case 'invalid_type': {
      const expected = kindName(issue.expected);
      return issue.input === undefined
        ? { path, problem: `required field is missing (expected ${expected})` }
        : { path, problem: `expected ${expected}, received ${describeValue(issue.input)}` };
    }
    case 'invalid_value':
      return {
        path,
        problem: `expected ${listValues(issue.values)}, received ${describeValue(issue.input)}`,
      };
    case 'unrecognized_keys': {
      const [key, ...others] = issue.keys;
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      return key === undefined
        ? { path, problem: issue.message }
        : { path: [...path, key], problem: `unknown key${others.length > 0 ? 's' : ''} ${keys}` };
    }
    case 'invalid_union':
      return describeUnion(issue, path);
    case 'too_small':
    case 'too_big':
    case 'not_multiple_of':
    case 'invalid_format':
      return { path, problem: `${issue.message}, received ${describeValue(issue.input)}` };
    default:
      return { path, problem: issue.message };
  }
}

function describeUnion(
  issue: Extract<Issue, { code: 'invalid_union' }>,
  path: Path,
): { path: Path; problem: string } {
  if (issue.discriminator !== undefined && 'options' in issue && issue.options !== undefined) {
    // A discriminated union with no branch for the tag: the path already ends at the tag.
    const expected = listValues(issue.options);
    const received = isRecord(issue.input) ? issue.input[issue.discriminator] : undefined;
    return received === undefined
      ? { path, problem: `required field is missing (expected ${expected})` }
      : { path, problem: `expected ${expected}, received ${describeValue(received)}` };
  }
  const branches = issue.errors.filter((branch) => branch.length > 0);
  const deepest = maxBy(branches, (branch) => Math.max(...branch.map(depth)));
  if (deepest === undefined) return { path, problem: issue.message };
  const furthest = maxBy(deepest, depth);
  if (furthest !== undefined && depth(furthest) > 0) return describeIssue(furthest, path);
  // Every branch refused the value itself (wrong kind): say which kinds would do.
  const expected = branches.flatMap((branch) =>
    branch.flatMap((i) =>
      i.code === 'invalid_type' && i.path.length === 0 ? [kindName(i.expected)] : [],
    ),
  );
  if (expected.length !== branches.length) return { path, problem: issue.message };
  return issue.input === undefined
    ? { path, problem: `required field is missing (expected ${expected.join(' or ')})` }
    : {
        path,
        problem: `expected ${expected.join(' or ')}, received ${describeValue(issue.input)}`,
      };
}

/** How far into the value an issue got: a longer path means the branch matched more of it. */
function depth(issue: Issue): number {
  if (issue.code === 'invalid_union' && issue.discriminator === undefined) {
    const nested = issue.errors.flat().map(depth);
    return issue.path.length + (nested.length === 0 ? 0 : Math.max(...nested));
  }
  // An unknown key is one level below the object that has it.
  return issue.path.length + (issue.code === 'unrecognized_keys' ? 1 : 0);
}

function maxBy<T>(items: T[], score: (item: T) => number): T | undefined {
  let best: T | undefined;
  let bestScore = -Infinity;
  for (const item of items) {
    const value = score(item);
    if (value > bestScore) {
      best = item;
      bestScore = value;
    }
  }
  return best;
}

/** Zod's name for an expected kind, in JSON words (a `record` is an object with any keys). */
function kindName(expected: string): string {
  return expected === 'record' ? 'object' : expected;
}

function listValues(values: readonly unknown[]): string {
  const shown = values.map((value) => JSON.stringify(value));
  return shown.length === 1 ? (shown[0] ?? '') : `one of ${shown.join(' | ')}`;
}

/** A short description of a received value: its kind, and the value itself when small. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number' && !Number.isFinite(value)) return `number (${String(value)})`;
  if (typeof value === 'undefined') return 'nothing';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const shown = JSON.stringify(value);
    return `${typeof value} ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}`;
  }
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
