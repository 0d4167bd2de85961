import type { Node } from 'web-tree-sitter';
import type { Hazard } from './syntax.js';

/**
 * Checks on the tree-sitter tree for places where tree-sitter-bash is known
 * to read a line differently from bash (ADR tools-0004), and for anything it
 * skipped. Each finding is a hazard, so the line is never proven harmless:
 *
 * - an ERROR node, or a node tree-sitter made up (MISSING) to finish the parse;
 * - an ANSI-C string (`$'…'`) that bash ends elsewhere: bash skips the
 *   character after every backslash, so `$'\\'` ends at its second quote;
 * - a here-document whose delimiter bash reads differently: bash joins a
 *   backslash-newline and removes quotes (`EO\⏎F` and `E"O"F` are `EOF`);
 * - a backquote in the body of a here-document with an unquoted delimiter:
 *   bash runs it, tree-sitter sees text;
 * - an operand bash evaluates as arithmetic, where an array subscript runs
 *   command substitutions: `[[ $'a[\x24(cmd)]' -eq 1 ]]`, `test -v 'a[$(cmd)]'`;
 * - source text outside every token: tree-sitter skips backslash-space as
 *   blank, while bash makes it part of a word.
 */
export function treeDifferences(root: Node, source: string): Hazard[] {
  const found: Hazard[] = [];
  const leaves: [number, number][] = [];
  const walk = (node: Node): void => {
    if (node.isMissing) found.push({ kind: 'parse-error', text: `missing ${node.type}` });
    if (node.isError) found.push({ kind: 'parse-error', text: node.text.slice(0, 40) });
    const check = NODE_CHECKS[node.type];
    const problem = check?.(node);
    if (problem !== undefined) found.push({ kind: problem.kind, text: problem.text });
    if (node.childCount === 0 || WHOLE_TOKENS.has(node.type)) {
      leaves.push([node.startIndex, node.endIndex]);
      return;
    }
    for (const child of node.children) if (child) walk(child);
  };
  walk(root);
  const skipped = skippedText(leaves, source);
  if (skipped !== undefined) found.push({ kind: 'parse-disagreement', text: skipped });
  return found;
}

/** Nodes read as a whole by the analysis; nothing inside them is skipped text. */
const WHOLE_TOKENS = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'heredoc_body',
  'heredoc_start',
  'heredoc_end',
  'comment',
  'regex',
]);

/** What may stand between tokens: blanks, newlines and line continuations. */
const BETWEEN_TOKENS = /^(?:[ \t\n]|\\\n)*$/;

/** The first piece of source that lies outside every token, if any. */
function skippedText(leaves: [number, number][], source: string): string | undefined {
  const ordered: [number, number][] = [...leaves, [source.length, source.length]];
  ordered.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [start, end] of ordered) {
    if (start > at) {
      const gap = source.slice(at, start);
      if (!BETWEEN_TOKENS.test(gap)) return `text no token covers: ${JSON.stringify(gap)}`;
    }
    at = Math.max(at, end);
  }
  return undefined;
}

type Problem = { kind: Hazard['kind']; text: string } | undefined;

const NODE_CHECKS: Record<string, (node: Node) => Problem> = {
  ansi_c_string: (node) =>
    ansiCLength(node.text) === node.text.length
      ? undefined
      : { kind: 'parse-disagreement', text: `bash ends ${node.text.slice(0, 40)} elsewhere` },
  heredoc_redirect: heredocProblem,
  heredoc_start: (node) =>
    node.text.includes('\\\n')
      ? { kind: 'parse-disagreement', text: `bash joins the here-document delimiter ${node.text}` }
      : undefined,
  test_command: (node) => testProblem(node),
  command: commandProblem,
  unset_command: (node) => subscriptProblem(node.namedChildren.map((child) => child?.text ?? '')),
  declaration_command: (node) =>
    subscriptProblem(node.namedChildren.map((child) => child?.text ?? '')),
};

/** How long bash's `$'…'` starting the text is: a backslash always takes the next character. */
export function ansiCLength(text: string): number {
  for (let i = 2; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === "'") return i + 1;
  }
  return -1;
}

function heredocProblem(node: Node): Problem {
  let start: Node | undefined;
  let end: Node | undefined;
  for (const child of node.namedChildren) {
    if (child?.type === 'heredoc_start') start = child;
    if (child?.type === 'heredoc_end') end = child;
  }
  if (start === undefined) return { kind: 'parse-error', text: node.text.slice(0, 40) };
  // tree-sitter does not see backquotes in a here-document body; bash runs them unless the delimiter is quoted.
  const body = node.namedChildren.find((child) => child?.type === 'heredoc_body');
  if (body && !/["'\\]/.test(start.text) && body.text.includes('`')) {
    return { kind: 'command-substitution', text: body.text.slice(0, 40) };
  }
  const delimiter = heredocDelimiter(start.text);
  if (
    delimiter === undefined ||
    start.text.includes('\\\n') ||
    end === undefined ||
    end.isMissing ||
    end.text !== delimiter
  ) {
    return {
      kind: 'parse-disagreement',
      text: `here-document delimiter ${JSON.stringify(start.text)} is read differently by bash`,
    };
  }
  return undefined;
}

/**
 * The here-document delimiter bash looks for: the word after quote removal
 * (`'EOF'`, `"EOF"`, `E"O"F`, `\EOF` are all `EOF`), with line continuations
 * joined. Undefined for words it cannot read for certain (`$'…'`, `$"…"`).
 */
export function heredocDelimiter(word: string): string | undefined {
  const text = word.replace(/\\\n/g, '');
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '$' && (text[i + 1] === "'" || text[i + 1] === '"')) return undefined;
    if (char === '\\') value += text[++i] ?? '';
    else if (char === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === -1) return undefined;
      value += text.slice(i + 1, close);
      i = close;
    } else if (char === '"') {
      const close = closingDoubleQuote(text, i + 1);
      if (close === -1) return undefined;
      value += text.slice(i + 1, close).replace(/\\([$`"\\])/g, '$1');
      i = close;
    } else value += char;
  }
  return value;
}

function closingDoubleQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** Comparison operators whose operands `[[ ]]` evaluates as arithmetic expressions. */
const ARITHMETIC_OPERATORS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** A plain decimal integer: the only arithmetic operand that cannot run anything. */
const PLAIN_INTEGER = /^[+-]?[0-9]+$/;
/**
 * A word that may hold a subscript that expands (`a[$(cmd)]`, `$'a[\x24(cmd)]'`):
 * a bracket and anything that can write or encode `$` or a backquote.
 */
const EXPANDING_SUBSCRIPT = /\[[^]*[$`\\]|[$`\\][^]*\[/;

function testProblem(node: Node): Problem {
  for (const expression of node.descendantsOfType(['binary_expression', 'unary_expression'])) {
    if (expression === null) continue;
    const operator = expression.childForFieldName('operator') ?? operatorOf(expression);
    const operands = expression.namedChildren.filter(
      (child) => child !== null && child.type !== 'test_operator',
    );
    const text = operator?.text ?? '';
    if (ARITHMETIC_OPERATORS.has(text)) {
      const unsafe = operands.find(
        (operand) => !PLAIN_INTEGER.test((operand?.text ?? '').replace(/^(['"])(.*)\1$/, '$2')),
      );
      if (unsafe) return { kind: 'arithmetic', text: `${text} ${unsafe.text.slice(0, 40)}` };
    }
  }
  return subscriptProblem(node.namedChildren.map((child) => child?.text ?? ''));
}

function operatorOf(expression: Node): Node | undefined {
  return expression.children.find((child) => child?.type === 'test_operator') ?? undefined;
}

/** Builtins that read an argument as a variable name (or arithmetic), where a subscript runs code. */
const NAME_READERS = new Set([
  'test',
  '[',
  'printf',
  'read',
  'let',
  'mapfile',
  'readarray',
  'unset',
  'wait',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'builtin',
  'command',
]);

function commandProblem(node: Node): Problem {
  const name = node.childForFieldName('name');
  const program = unquoted(name?.text ?? '');
  if (!NAME_READERS.has(program)) return undefined;
  const words = node.namedChildren.map((child) => child?.text ?? '');
  // printf reads a name only after -v; its other arguments are formats and values.
  if (program === 'printf') {
    return subscriptProblem(
      words.filter((word, i) => word.startsWith('-v') || words[i - 1] === '-v'),
    );
  }
  return subscriptProblem(words);
}

function subscriptProblem(words: readonly string[]): Problem {
  const word = words.find((text) => EXPANDING_SUBSCRIPT.test(text));
  return word === undefined
    ? undefined
    : { kind: 'arithmetic', text: `a subscript bash may evaluate: ${word.slice(0, 40)}` };
}

/** A program name with quote characters and backslashes dropped (`\\test`, `"test"`). */
function unquoted(text: string): string {
  return text.replace(/["'\\]/g, '');
}
