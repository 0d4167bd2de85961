import type { Node } from 'web-tree-sitter';
import type { HazardKind, Word } from './syntax.js';
import { quoteWord } from './syntax.js';

/** Where word decoding reports what it finds inside a word. */
export interface WordSink {
  /** Records a construct that cannot be analysed statically. */
  hazard(kind: HazardKind, node: Node): void;
  /** Walks the statements and words inside `node`, one level deeper (substitutions). */
  descend(node: Node): void;
}

type Piece = {
  value: string;
  glob: boolean;
  tilde: boolean;
  dynamic: boolean;
  /** Literal value before the first unquoted glob character, when `glob`. */
  prefix: string;
};

/**
 * Decodes a word-like node (word, string, raw string, ANSI-C string,
 * concatenation, expansion, substitution) into its value after quote
 * removal, the way bash would, and reports expansions and substitutions to
 * the sink. `r""m` and `\rm` decode to `rm`; `$'\x72m'` too.
 */
export function decodeWord(node: Node, sink: WordSink): Word {
  const piece = decodePiece(node, sink, true);
  const raw = piece.dynamic || piece.glob || piece.tilde;
  return {
    value: piece.value,
    text: raw ? node.text : quoteWord(piece.value),
    glob: piece.glob,
    tilde: piece.tilde,
    dynamic: piece.dynamic,
    literalPrefix: piece.glob ? piece.prefix : piece.value,
  };
}

function decodePiece(node: Node, sink: WordSink, first: boolean): Piece {
  switch (node.type) {
    case 'word':
      return decodeUnquoted(node.text, first);
    case 'number':
      return literal(node.text);
    case 'raw_string':
      return literal(node.text.slice(1, -1));
    case 'string':
      return decodeDoubleQuoted(node, sink);
    case 'ansi_c_string':
      return literal(decodeAnsiC(node.text.slice(2, -1)));
    case 'concatenation':
      return merge(
        node.children.flatMap((child, i) =>
          child ? [decodePiece(child, sink, first && i === 0)] : [],
        ),
      );
    case 'brace_expression':
      return { ...literal(node.text), glob: true, prefix: '' };
    case 'simple_expansion':
    case 'expansion':
      return opaque(node, sink, 'expansion');
    case 'arithmetic_expansion':
      return opaque(node, sink, 'arithmetic');
    case 'command_substitution':
      return opaque(node, sink, 'command-substitution');
    case 'process_substitution':
      return opaque(node, sink, 'process-substitution');
    default:
      return opaque(node, sink, 'unsupported-syntax');
  }
}

function literal(value: string): Piece {
  return { value, glob: false, tilde: false, dynamic: false, prefix: value };
}

function opaque(node: Node, sink: WordSink, kind: HazardKind): Piece {
  sink.hazard(kind, node);
  sink.descend(node);
  return { value: node.text, glob: false, tilde: false, dynamic: true, prefix: '' };
}

function merge(pieces: Piece[]): Piece {
  let value = '';
  let prefix = '';
  let glob = false;
  let dynamic = false;
  for (const piece of pieces) {
    if (!glob && piece.glob) prefix = value + piece.prefix;
    value += piece.value;
    glob ||= piece.glob;
    dynamic ||= piece.dynamic;
  }
  return { value, glob, dynamic, tilde: pieces[0]?.tilde ?? false, prefix: glob ? prefix : value };
}

const GLOB_CHARACTERS = new Set(['*', '?', '[', '{', '}']);

/** An unquoted word: backslash escapes, glob characters, leading `~`. */
function decodeUnquoted(text: string, first: boolean): Piece {
  let value = '';
  let glob = false;
  let prefix = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '\\') {
      const next = text[i + 1];
      if (next === undefined) value += char;
      else if (next !== '\n') value += next;
      i++;
    } else {
      if (!glob && GLOB_CHARACTERS.has(char)) {
        glob = true;
        prefix = value;
      }
      value += char;
    }
  }
  return {
    value,
    glob,
    tilde: first && text.startsWith('~'),
    dynamic: false,
    prefix: glob ? prefix : value,
  };
}

/** A double-quoted string: only `\$ \` \" \\` and backslash-newline are escapes. */
function decodeDoubleQuoted(node: Node, sink: WordSink): Piece {
  let value = '';
  let dynamic = false;
  for (const child of node.children) {
    if (child === null || child.type === '"') continue;
    if (child.type === 'string_content') {
      value += child.text.replace(/\\([$`"\\\n])/g, (_, escaped: string) =>
        escaped === '\n' ? '' : escaped,
      );
    } else {
      value += decodePiece(child, sink, false).value;
      dynamic = true;
    }
  }
  return { value, glob: false, tilde: false, dynamic, prefix: value };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\u0007',
  b: '\b',
  e: '\u001b',
  E: '\u001b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The body of `$'…'`, with bash's escapes (`\x41`, `\101`, `\u263a`, `\cA`, `\n`, …). */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (whole, escape: string) => {
      const head = escape[0] ?? '';
      const code = (digits: string, radix: number): string =>
        String.fromCodePoint(Math.min(Number.parseInt(digits, radix), 0x10ffff));
      if (/^[0-7]/.test(escape)) return code(escape, 8);
      if (head === 'x' && escape.length > 1) return code(escape.slice(1), 16);
      if ((head === 'u' || head === 'U') && escape.length > 1) return code(escape.slice(1), 16);
      if (head === 'c' && escape.length === 2) {
        return String.fromCharCode((escape.codePointAt(1) ?? 0) & 0x1f);
      }
      return SIMPLE_ESCAPES[escape] ?? whole;
    },
  );
}
