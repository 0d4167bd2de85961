import type { Node } from 'web-tree-sitter';
import { expandBraces, type Segment } from './braces.js';
import type { HazardKind, Word } from './syntax.js';
import { quoteWord } from './syntax.js';

/** Where word decoding reports what it finds inside a word. */
export interface WordSink {
  /** Records a construct that cannot be analysed statically. */
  hazard(kind: HazardKind, node: Node): void;
  /** Walks the statements and words inside `node`, one level deeper (substitutions). */
  descend(node: Node): void;
}

/** A decoded word as runs of quoted and unquoted characters; `dynamic` when an expansion is in it. */
type Piece = { segments: Segment[]; dynamic: boolean };

const GLOB_CHARACTERS = /[*?[]/;

/**
 * Decodes a word-like node (word, string, raw string, ANSI-C string,
 * concatenation, expansion, substitution) into its value after quote
 * removal, the way bash would, and reports expansions and substitutions to
 * the sink. `r""m` and `\rm` decode to `rm`; `$'\x72m'` too. No brace
 * expansion: for redirection targets and assignment values.
 */
export function decodeWord(node: Node, sink: WordSink): Word {
  const piece = decodePiece(node, sink);
  return toWord(piece.segments, piece.dynamic, node.text);
}

/**
 * Decodes a command word with bash's brace expansion, which may turn it into
 * several words (`{rm,-rf,/}` is `rm -rf /`), or none (`{,}`); undefined
 * when it would make too many to analyse.
 */
export function decodeWords(node: Node, sink: WordSink): Word[] | undefined {
  const piece = decodePiece(node, sink);
  if (
    piece.dynamic ||
    !piece.segments.some((segment) => !segment.quoted && segment.text.includes('{'))
  ) {
    return [toWord(piece.segments, piece.dynamic, node.text)];
  }
  const expanded = expandBraces(piece.segments);
  if (expanded === undefined) return undefined;
  if (expanded.length === 1) return [toWord(piece.segments, false, node.text)];
  // Bash drops a word that brace expansion left empty and unquoted: `time {,} rm` runs rm.
  // (An empty quote, `''{,}`, keeps it; the expansion does not carry it, so nothing is dropped then.)
  const emptyQuote = piece.segments.some((segment) => segment.quoted && segment.text === '');
  return expanded
    .filter((segments) => emptyQuote || segments.some((segment) => segment.text !== ''))
    .map((segments) => toWord(segments, false, undefined));
}

function toWord(segments: readonly Segment[], dynamic: boolean, source: string | undefined): Word {
  const value = segments.map((segment) => segment.text).join('');
  const globAt = firstUnquotedGlob(segments);
  const first = segments[0];
  const tilde = first !== undefined && !first.quoted && first.text.startsWith('~');
  const raw = dynamic || globAt !== undefined || tilde;
  return {
    value,
    text: raw ? (source ?? shellText(segments)) : quoteWord(value),
    glob: globAt !== undefined,
    tilde,
    dynamic,
    literalPrefix: globAt === undefined ? value : value.slice(0, globAt),
  };
}

/** Where the first unquoted glob character is in the value, if any. */
function firstUnquotedGlob(segments: readonly Segment[]): number | undefined {
  let offset = 0;
  for (const segment of segments) {
    if (!segment.quoted) {
      const at = segment.text.search(GLOB_CHARACTERS);
      if (at !== -1) return offset + at;
    }
    offset += segment.text.length;
  }
  return undefined;
}

/** Shell text for segments: unquoted runs as they are, quoted runs single-quoted. */
function shellText(segments: readonly Segment[]): string {
  return segments
    .map((segment) => (segment.quoted ? quoteWord(segment.text) : segment.text))
    .join('');
}

function decodePiece(node: Node, sink: WordSink): Piece {
  switch (node.type) {
    case 'word':
      return { segments: decodeUnquoted(node.text), dynamic: false };
    case 'number':
    case 'brace_expression':
      return { segments: [{ text: node.text, quoted: false }], dynamic: false };
    case 'raw_string':
      return quoted(node.text.slice(1, -1));
    case 'string':
      return decodeDoubleQuoted(node, sink);
    case 'ansi_c_string':
      return quoted(decodeAnsiC(node.text.slice(2, -1)));
    case 'concatenation': {
      const pieces = node.children.flatMap((child) => (child ? [decodePiece(child, sink)] : []));
      return {
        segments: pieces.flatMap((piece) => piece.segments),
        dynamic: pieces.some((piece) => piece.dynamic),
      };
    }
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

function quoted(text: string): Piece {
  return { segments: [{ text, quoted: true }], dynamic: false };
}

function opaque(node: Node, sink: WordSink, kind: HazardKind): Piece {
  sink.hazard(kind, node);
  sink.descend(node);
  return { segments: [{ text: node.text, quoted: true }], dynamic: true };
}

/** An unquoted word: a backslash makes the next character quoted; backslash-newline vanishes. */
function decodeUnquoted(text: string): Segment[] {
  const segments: Segment[] = [];
  const add = (char: string, isQuoted: boolean): void => {
    const last = segments.at(-1);
    if (last !== undefined && last.quoted === isQuoted) last.text += char;
    else segments.push({ text: char, quoted: isQuoted });
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char !== '\\') add(char, false);
    else if (i + 1 >= text.length) add(char, true);
    else if (text[++i] !== '\n') add(text[i] ?? '', true);
  }
  return segments;
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
      value += decodePiece(child, sink)
        .segments.map((segment) => segment.text)
        .join('');
      dynamic = true;
    }
  }
  return { segments: [{ text: value, quoted: true }], dynamic };
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

/**
 * The body of `$'…'`, with bash's escapes (`\x41`, `\101`, `\u263a`, `\cA`,
 * `\n`, …). Bash ends the string at a NUL it decodes (`$'r\x00zz'm` is `rm`),
 * so the value stops there too.
 */
export function decodeAnsiC(body: string): string {
  const decoded = body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c\\\\|c.|.)/gs,
    (whole, escape: string) => {
      const head = escape[0] ?? '';
      const code = (digits: string, radix: number): string =>
        String.fromCodePoint(Math.min(Number.parseInt(digits, radix), 0x10ffff));
      // An octal escape is one byte: bash keeps its low eight bits (`\400` is NUL).
      if (/^[0-7]/.test(escape)) return String.fromCharCode(Number.parseInt(escape, 8) & 0xff);
      if ((head === 'x' || head === 'u' || head === 'U') && escape.length > 1)
        return code(escape.slice(1), 16);
      // `\c?` is DEL; `\c\\` takes both backslashes.
      if (escape === 'c?') return '\u007f';
      if (head === 'c' && escape.length >= 2)
        return String.fromCharCode((escape.codePointAt(1) ?? 0) & 0x1f);
      return SIMPLE_ESCAPES[escape] ?? whole;
    },
  );
  const nul = decoded.indexOf('\0');
  return nul === -1 ? decoded : decoded.slice(0, nul);
}
