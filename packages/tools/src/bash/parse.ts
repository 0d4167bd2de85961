import type { Node, Parser } from 'web-tree-sitter';
import type {
  Assignment,
  Hazard,
  HazardKind,
  ParsedScript,
  Redirect,
  SimpleCommand,
  Word,
} from './syntax.js';
import { literalWord } from './syntax.js';
import { secondParserShape } from './second-parser.js';
import { shapeDifference, treeShape } from './shape.js';
import { parsePlainCommand } from './simple-parse.js';
import { treeDifferences } from './tree-checks.js';
import { decodeWord, decodeWords, type WordSink } from './words.js';

/** Statements that group others without hiding anything: walked through. */
const SEQUENCES = new Set(['program', 'list', 'pipeline', 'negated_command']);

/** Statements whose effect cannot be followed statically (SPEC section 7: safety asks). */
const OPAQUE_STATEMENTS: Record<string, HazardKind> = {
  subshell: 'subshell',
  compound_statement: 'control-structure',
  if_statement: 'control-structure',
  while_statement: 'control-structure',
  for_statement: 'control-structure',
  c_style_for_statement: 'control-structure',
  case_statement: 'control-structure',
  function_definition: 'function',
  arithmetic_expansion: 'arithmetic',
};

/** Parts of larger constructs, walked silently because their parent already counted. */
const INNER_NODES = new Set([
  'do_group',
  'elif_clause',
  'else_clause',
  'case_item',
  'heredoc_body',
  'heredoc_content',
  'heredoc_start',
  'heredoc_end',
  'file_redirect',
  'herestring_redirect',
  'heredoc_redirect',
  'binary_expression',
  'unary_expression',
  'postfix_expression',
  'ternary_expression',
  'parenthesized_expression',
  'test_operator',
  'variable_name',
  'special_variable_name',
  'subscript',
  'array',
  'regex',
  'extglob_pattern',
  'file_descriptor',
  'string_content',
  'command_name',
]);

const WORD_NODES = new Set([
  'word',
  'number',
  'string',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'brace_expression',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
]);

const REDIRECT_NODES = new Set(['file_redirect', 'herestring_redirect', 'heredoc_redirect']);

/** Nodes whose text is literal: a backslash-newline inside them is not a line continuation. */
const LITERAL_NODES = new Set([
  'raw_string',
  'string',
  'ansi_c_string',
  'heredoc_body',
  'heredoc_content',
  'comment',
]);

/** Ranges of invisible, bidirectional, control and look-alike space characters. */
const HIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0xa0],
  [0xad, 0xad],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x2064],
  [0x2066, 0x206f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

/** The first hidden character of the text (tab and newline are fine), as `U+XXXX`. */
function hiddenCharacter(text: string): string | undefined {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (HIDDEN_RANGES.some(([from, to]) => code >= from && code <= to)) {
      return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    }
  }
  return undefined;
}

/**
 * Parses a command line with tree-sitter-bash and reduces it to simple
 * commands and hazards. Unknown syntax is a hazard, so what the walker does
 * not understand is never taken as harmless (fail closed).
 */
export function parseScript(parser: Parser, source: string): ParsedScript {
  const walker = new ScriptWalker();
  const hidden = hiddenCharacter(source);
  if (hidden !== undefined) walker.hazards.push({ kind: 'hidden-character', text: hidden });
  const tree = parser.parse(source);
  if (tree === null) return { commands: [], hazards: [{ kind: 'parse-error', text: source }] };
  try {
    const root = tree.rootNode;
    walker.visit(root, []);
    if (root.hasError) walker.hazards.push({ kind: 'parse-error', text: source });
    for (const index of lineContinuations(source)) {
      if (!insideLiteral(root, index)) {
        walker.hazards.push({
          kind: 'line-continuation',
          text: source.slice(Math.max(0, index - 20), index + 22),
        });
      }
    }
    walker.hazards.push(...treeDifferences(root, source));
    // Only a line with nothing else to ask about is compared: the rest asks anyway.
    if (walker.hazards.length === 0) {
      const difference = crossCheck(root, source);
      if (difference !== undefined)
        walker.hazards.push({ kind: 'parse-disagreement', text: difference });
    }
  } finally {
    tree.delete();
  }
  return { commands: walker.commands, hazards: walker.hazards };
}

class ScriptWalker implements WordSink {
  readonly commands: SimpleCommand[] = [];
  readonly hazards: Hazard[] = [];
  private depth = 0;

  hazard(kind: HazardKind, node: Node): void {
    this.hazards.push({ kind, text: node.text });
  }

  descend(node: Node): void {
    this.depth++;
    for (const child of node.namedChildren) if (child) this.visit(child, []);
    this.depth--;
  }

  visit(node: Node, redirects: Redirect[]): void {
    const type = node.type;
    if (SEQUENCES.has(type)) {
      for (const child of node.namedChildren) if (child) this.visit(child, redirects);
      return;
    }
    const opaque = OPAQUE_STATEMENTS[type];
    if (opaque !== undefined) {
      this.hazard(node.firstChild?.type === '((' ? 'arithmetic' : opaque, node);
      this.descend(node);
      return;
    }
    switch (type) {
      case 'redirected_statement':
        return this.redirected(node, redirects);
      case 'command':
        return this.command(node, redirects);
      case 'variable_assignment':
        this.push('assignment', [this.assignment(node)], [], redirects);
        return;
      case 'variable_assignments':
        for (const child of node.namedChildren) if (child) this.visit(child, redirects);
        return;
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, redirects);
      case 'test_command':
        return this.test(node, redirects);
      case 'comment':
        return;
      case 'ERROR':
        this.hazard('parse-error', node);
        this.descend(node);
        return;
      default:
        if (WORD_NODES.has(type)) decodeWord(node, this);
        else if (INNER_NODES.has(type)) this.descend(node);
        else {
          this.hazard('unsupported-syntax', node);
          this.descend(node);
        }
    }
  }

  private push(
    kind: SimpleCommand['kind'],
    assignments: Assignment[],
    words: Word[],
    redirects: Redirect[],
  ): void {
    this.commands.push({ kind, assignments, words, redirects, depth: this.depth });
  }

  private redirected(node: Node, inherited: Redirect[]): void {
    const own: Redirect[] = [];
    const statements: Node[] = [];
    const extras: Node[] = [];
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (REDIRECT_NODES.has(child.type)) own.push(...this.redirect(child, statements, extras));
    }
    const body = node.childForFieldName('body');
    if (body?.type === 'command') this.command(body, [...own, ...inherited], extras);
    else {
      // Words after the target with no simple command to join (`{ ls; } > x y`): bash refuses them.
      for (const extra of extras) {
        this.hazard('unsupported-syntax', extra);
        decodeWord(extra, this);
      }
      if (body !== null) this.visit(body, [...own, ...inherited]);
      // A redirection with no command (`> file`) still opens, creates or truncates its file.
      else this.push('command', [], [], [...own, ...inherited]);
    }
    for (const statement of statements) this.visit(statement, inherited);
  }

  /**
   * A simple command. `trailing` are words tree-sitter put in a redirection
   * after its target (`cat > x $(id)`): bash reads them as more arguments.
   */
  private command(node: Node, inherited: Redirect[], trailing: readonly Node[] = []): void {
    const assignments: Assignment[] = [];
    const words: Word[] = [];
    const own: Redirect[] = [];
    const statements: Node[] = [];
    const addWord = (word: Node): void => {
      const decoded = decodeWords(word, this);
      if (decoded === undefined) this.hazard('brace-expansion', word);
      words.push(...(decoded ?? [decodeWord(word, this)]));
    };
    node.children.forEach((child, i) => {
      if (child === null) return;
      const field = node.fieldNameForChild(i);
      if (child.type === 'variable_assignment') assignments.push(this.assignment(child));
      else if (REDIRECT_NODES.has(child.type)) {
        const extras: Node[] = [];
        own.push(...this.redirect(child, statements, extras));
        extras.forEach(addWord);
      } else if (field === 'name') addWord(child.firstNamedChild ?? child);
      else if (field === 'argument') addWord(child);
      else if (child.type !== 'comment') this.hazard('unsupported-syntax', child);
    });
    trailing.forEach(addWord);
    this.push('command', assignments, words, [...own, ...inherited]);
    for (const statement of statements) this.visit(statement, inherited);
  }

  private assignment(node: Node): Assignment {
    const name = node.childForFieldName('name');
    if (name !== null && name.type !== 'variable_name') this.descend(name);
    const value = node.childForFieldName('value');
    let word: Word | undefined;
    if (value !== null) {
      if (value.type === 'array') {
        this.descend(value);
        word = { ...literalWord(value.text), dynamic: true };
      } else {
        word = decodeWord(value, this);
      }
    }
    return { name: name?.type === 'variable_name' ? name.text : (name?.text ?? ''), value: word };
  }

  private declaration(node: Node, redirects: Redirect[]): void {
    const keyword = node.firstChild?.text ?? '';
    const assignments: Assignment[] = [];
    const words: Word[] = [literalWord(keyword)];
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'variable_assignment') {
        const assignment = this.assignment(child);
        assignments.push(assignment);
        words.push(literalWord(`${assignment.name}=${assignment.value?.value ?? ''}`));
      } else if (child.type === 'variable_name') {
        assignments.push({ name: child.text, value: undefined });
        words.push(literalWord(child.text));
      } else if (WORD_NODES.has(child.type)) {
        const decoded = decodeWords(child, this);
        if (decoded === undefined) this.hazard('brace-expansion', child);
        words.push(...(decoded ?? [decodeWord(child, this)]));
      } else {
        this.hazard('unsupported-syntax', child);
      }
    }
    this.push('declaration', assignments, words, redirects);
  }

  private test(node: Node, redirects: Redirect[]): void {
    this.descend(node);
    const words = [literalWord(node.firstChild?.text ?? '[')];
    for (const child of node.namedChildren) if (child) words.push(literalWord(child.text));
    this.push('test', [], words, redirects);
  }

  /**
   * Decodes a redirection; statements chained after a here-document go to
   * `statements`, and words tree-sitter put after the target (bash's further
   * arguments of the command) to `extras`.
   */
  private redirect(node: Node, statements: Node[], extras: Node[]): Redirect[] {
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    if (node.type === 'herestring_redirect') {
      for (const child of node.namedChildren) if (child) decodeWord(child, this);
      return [{ operator: '<<<', descriptor: undefined, target: undefined }];
    }
    if (node.type === 'heredoc_redirect') {
      const nested: Redirect[] = [];
      for (const child of node.namedChildren) {
        if (child === null) continue;
        if (child.type === 'heredoc_body') this.descend(child);
        else if (REDIRECT_NODES.has(child.type))
          nested.push(...this.redirect(child, statements, extras));
        else if (!INNER_NODES.has(child.type)) statements.push(child);
      }
      return [{ operator, descriptor: undefined, target: undefined }, ...nested];
    }
    const descriptor = node.childForFieldName('descriptor');
    const destinations = node.childrenForFieldName('destination').filter((child) => child !== null);
    // `<&-` and `>&-` take no target: a word after them is the command's.
    const closes = operator === '<&-' || operator === '>&-';
    const destination = closes ? undefined : destinations[0];
    extras.push(...destinations.slice(closes ? 0 : 1));
    return [
      {
        operator,
        descriptor: descriptor === null ? undefined : Number(descriptor.text),
        target: destination === undefined ? undefined : decodeWord(destination, this),
      },
    ];
  }
}

/**
 * Where the second parser (mvdan/sh) reads the line differently from
 * tree-sitter-bash, or why it could not be asked; undefined when they agree
 * or when the line is plain words, which the plain reader already splits
 * exactly as bash does.
 */
function crossCheck(root: Node, source: string): string | undefined {
  // Plain words split on blanks (`git status`) are read alike by every reader: nothing to compare.
  if (parsePlainCommand(source) !== undefined) return undefined;
  const second = secondParserShape(source);
  if (second === undefined) return 'the second parser has not loaded';
  return shapeDifference(treeShape(root), second);
}

/** Indexes of backslash-newline pairs whose backslash is not itself escaped. */
function lineContinuations(source: string): number[] {
  const found: number[] = [];
  for (let at = source.indexOf('\\\n'); at !== -1; at = source.indexOf('\\\n', at + 2)) {
    let backslashes = 1;
    while (source[at - backslashes] === '\\') backslashes++;
    const prev = source[at - backslashes] ?? ' ';
    const next = source[at + 2] ?? ' ';
    const joinsWords = !/[\s;&|<>()]/.test(prev) && !/[\s;&|<>()]/.test(next);
    if (backslashes % 2 === 1 && joinsWords) found.push(at);
  }
  return found;
}

function insideLiteral(root: Node, index: number): boolean {
  for (let node = root.descendantForIndex(index, index + 1); node !== null; node = node.parent) {
    if (LITERAL_NODES.has(node.type)) return true;
  }
  return false;
}
