import type { Node } from 'web-tree-sitter';

/**
 * What two bash parsers must agree on before a command can be proven
 * harmless (ADR tools-0004): where each simple command's words are, which
 * redirections there are and where their targets are, and whether anything
 * outside the simple subset (substitutions, subshells, control structures)
 * is in the line. Units are short strings of offsets into the source
 * (`words 0-2 3-7`, `2>& 6-7`, `test 0-12`), so a difference can be named.
 */
export type ShellShape = {
  /** One unit per simple command or test, in the order the parser met them. */
  commands: string[];
  /** One unit per redirection: descriptor, operator, target span. */
  redirects: string[];
  /** Constructs outside the simple subset, with their spans. */
  other: string[];
  /** Why the parser refused the source, if it did. */
  failure: string | undefined;
};

/** Statement-level nodes that are simple commands, walked into for their redirections. */
const GROUPS = new Set(['program', 'list', 'pipeline', 'negated_command', 'variable_assignments']);

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

const span = (node: Node): string => `${node.startIndex}-${node.endIndex}`;

/**
 * The shape tree-sitter-bash gives a line, read off its tree. Only called
 * for lines the walker found no hazard in, so any node outside the simple
 * subset is reported in `other`.
 */
export function treeShape(root: Node): ShellShape {
  const shape: ShellShape = { commands: [], redirects: [], other: [], failure: undefined };
  visit(root, shape);
  shape.commands.sort(byStart);
  shape.redirects.sort(byStart);
  return shape;
}

function visit(node: Node, shape: ShellShape): void {
  const type = node.type;
  if (GROUPS.has(type)) {
    if (type === 'variable_assignments') {
      shape.commands.push(
        `words ${node.namedChildren.flatMap((c) => (c ? [span(c)] : [])).join(' ')}`,
      );
      return;
    }
    for (const child of node.namedChildren) if (child) visit(child, shape);
    return;
  }
  if (REDIRECTS.has(type)) return redirect(node, shape, []);
  switch (type) {
    case 'redirected_statement':
      return redirected(node, shape);
    case 'command':
      return command(node, shape, []);
    case 'variable_assignment':
      shape.commands.push(`words ${span(node)}`);
      return;
    case 'declaration_command':
    case 'unset_command': {
      const keyword = node.firstChild;
      const words = [keyword, ...node.namedChildren].flatMap((c) => (c ? [span(c)] : []));
      shape.commands.push(`words ${words.join(' ')}`);
      return;
    }
    case 'test_command':
      shape.commands.push(`test ${span(node)}`);
      return;
    case 'comment':
      return;
    default:
      shape.other.push(`${type} ${span(node)}`);
  }
}

/** A statement with redirections; words after a target are the command's (`cat > x y`). */
function redirected(node: Node, shape: ShellShape): void {
  const extras: Node[] = [];
  for (const child of node.namedChildren) {
    if (child !== null && REDIRECTS.has(child.type)) redirect(child, shape, extras);
  }
  const body = node.childForFieldName('body');
  if (body?.type === 'command') return command(body, shape, extras);
  for (const extra of extras) shape.other.push(`${extra.type} ${span(extra)}`);
  if (body !== null) visit(body, shape);
}

function command(node: Node, shape: ShellShape, trailing: readonly Node[]): void {
  const words: string[] = [];
  node.children.forEach((child, i) => {
    if (child === null) return;
    const field = node.fieldNameForChild(i);
    if (REDIRECTS.has(child.type)) {
      const extras: Node[] = [];
      redirect(child, shape, extras);
      words.push(...extras.map(span));
    } else if (child.type === 'variable_assignment' || field === 'name' || field === 'argument')
      words.push(span(child));
    else if (child.type !== 'comment') shape.other.push(`${child.type} ${span(child)}`);
  });
  words.push(...trailing.map(span));
  shape.commands.push(`words ${words.join(' ')}`);
}

function redirect(node: Node, shape: ShellShape, extras: Node[]): void {
  const token = node.children.find((child) => child !== null && !child.isNamed);
  const descriptor = node.childForFieldName('descriptor')?.text ?? '';
  if (node.type === 'heredoc_redirect') {
    let start: Node | null = null;
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'heredoc_start') start = child;
      else if (REDIRECTS.has(child.type)) redirect(child, shape, extras);
      else if (!HEREDOC_PARTS.has(child.type)) visit(child, shape);
    }
    shape.redirects.push(`${descriptor}${token?.type ?? '?'} ${start === null ? '' : span(start)}`);
    return;
  }
  const targets = node.children.filter(
    (child, i) => child !== null && child.isNamed && node.fieldNameForChild(i) !== 'descriptor',
  );
  // tree-sitter reads `<&-` and `>&-` as one token; mvdan/sh as `<&` and the word `-`.
  if (token && /^[<>]&-$/.test(token.type)) {
    shape.redirects.push(
      `${descriptor}${token.type.slice(0, 2)} ${token.endIndex - 1}-${token.endIndex}`,
    );
    extras.push(...targets.filter((target) => target !== null));
    return;
  }
  const [target, ...rest] = targets;
  extras.push(...rest.filter((word) => word !== null));
  shape.redirects.push(`${descriptor}${token?.type ?? '?'} ${target ? span(target) : ''}`);
}

const HEREDOC_PARTS = new Set(['heredoc_start', 'heredoc_body', 'heredoc_end']);

/** Orders units by the first offset in them. */
function byStart(a: string, b: string): number {
  return firstOffset(a) - firstOffset(b);
}

function firstOffset(unit: string): number {
  const match = /(\d+)-\d+/.exec(unit);
  return match === null ? -1 : Number(match[1]);
}

/**
 * Where two shapes of one line differ, in words for the safety reason, or
 * undefined when they agree. A parser that refused the line disagrees.
 */
export function shapeDifference(first: ShellShape, second: ShellShape): string | undefined {
  if (second.failure !== undefined) return `the second parser refuses it (${second.failure})`;
  if (first.failure !== undefined) return `the first parser refuses it (${first.failure})`;
  const other = second.other[0] ?? first.other[0];
  if (other !== undefined) return `only one parser sees ${other}`;
  return (
    listDifference('commands', first.commands, [...second.commands].sort(byStart)) ??
    listDifference('redirections', first.redirects, [...second.redirects].sort(byStart))
  );
}

function listDifference(
  what: string,
  first: readonly string[],
  second: readonly string[],
): string | undefined {
  const length = Math.max(first.length, second.length);
  for (let i = 0; i < length; i++) {
    if (first[i] !== second[i]) {
      return `the parsers read the ${what} differently (${first[i] ?? 'none'} / ${second[i] ?? 'none'})`;
    }
  }
  return undefined;
}

/**
 * Maps UTF-8 byte offsets (the second parser's) to string indexes (UTF-16
 * code units, tree-sitter's and JavaScript's) for one source.
 */
export function byteToIndex(source: string): (offset: number) => number {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(source)) return (offset) => offset;
  const indexes: number[] = [];
  let index = 0;
  for (const char of source) {
    const bytes = Buffer.byteLength(char);
    for (let i = 0; i < bytes; i++) indexes.push(index);
    index += char.length;
  }
  return (offset) => indexes[offset] ?? index;
}
