import type sh from 'mvdan-sh';
import { CommandAnalysisError } from '../errors.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { byteToIndex } from './shape.js';
import type { ShellShape } from './shape.js';

/** The second parser's module (mvdan/sh, built for JavaScript): its `syntax` package. */
type Syntax = sh.ShellScript['syntax'];

let loading: Promise<Syntax> | undefined;
let ready: Syntax | undefined;
/** One parser, reused: mvdan/sh's parser resets itself for each source, and a new one costs buffers. */
let parser: sh.Parser | undefined;
const cache = new BoundedCache<string, ShellShape>(1024);
/** A line with the common constructs, parsed once while loading. */
const WARM_UP = `a=1 b -c "d" 'e' $'f' g\\ h <i >j 2>&1 && k | l || m; n & [ o ] && [[ p ]]\ncat <<'Q' >/dev/null\nr\nQ\nexport S=t; time u`;
/** Longer lines (a big here-document) are parsed each time rather than kept. */
const MAX_CACHED_LENGTH = 16_384;

/**
 * Loads the second bash parser (mvdan/sh) once, on first use. It is the
 * check on tree-sitter-bash (ADR tools-0004): a command is only proven
 * harmless when both parsers read it the same way. A failed load is not
 * remembered, so a later call tries again; until it has loaded, nothing is
 * proven.
 */
export function loadSecondParser(): Promise<Syntax> {
  loading ??= import('mvdan-sh').then(
    (module) => {
      ready = module.default.syntax;
      parser = ready.NewParser();
      // The first parses of a kind of line run cold code; pay for that here, in the background load.
      readShape(ready, parser, WARM_UP);
      return ready;
    },
    (error: unknown) => {
      loading = undefined;
      throw new CommandAnalysisError('The second bash parser could not be loaded.', {
        cause: error,
      });
    },
  );
  return loading;
}

/** Whether the second parser has loaded, for the synchronous permission questions. */
export function secondParserReady(): boolean {
  return ready !== undefined;
}

/**
 * What the second parser reads in `source`: its simple commands' words,
 * its redirections and any construct outside the simple subset, as offsets
 * into `source`. Undefined when the parser has not loaded; a shape with a
 * `failure` when it refuses the source. Kept per source.
 */
export function secondParserShape(source: string): ShellShape | undefined {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  if (ready === undefined || parser === undefined) return undefined;
  const shape = readShape(ready, parser, source);
  if (source.length <= MAX_CACHED_LENGTH) cache.set(source, shape);
  return shape;
}

function readShape(syntax: Syntax, parser: sh.Parser, source: string): ShellShape {
  let file: sh.File;
  try {
    file = parser.Parse(source, '');
  } catch (error) {
    return { commands: [], redirects: [], other: [], failure: describe(error) };
  }
  const index = byteToIndex(source);
  const span = (node: sh.Node): string =>
    `${index(node.Pos().Offset())}-${index(node.End().Offset())}`;
  const commands: string[] = [];
  const redirects: string[] = [];
  const other: string[] = [];
  // `time` is a keyword to mvdan/sh and a command word to tree-sitter: its words join the command it times.
  let timed: string[] = [];
  syntax.Walk(file, (node) => {
    if (node === null) return true;
    const type = syntax.NodeType(node);
    if (isCall(node, type)) {
      const words = [
        ...timed,
        ...[...node.Assigns, ...node.Args].filter((item) => item !== null).map(span),
      ];
      timed = [];
      const first = node.Args[0];
      const last = node.Args.at(-1);
      if (first && last && node.Assigns.length === 0 && first.Lit() === '[') {
        commands.push(`test ${index(first.Pos().Offset())}-${index(last.End().Offset())}`);
      } else {
        commands.push(`words ${words.join(' ')}`);
      }
    } else if (isTime(node, type)) {
      timed = timeWords(node, source, index);
      if (node.Stmt === null) commands.push(`words ${timed.join(' ')}`);
    } else if (isDeclaration(node, type)) {
      const words = [node.Variant, ...node.Args].filter((item) => item !== null);
      commands.push(`words ${words.map(span).join(' ')}`);
    } else if (type === 'TestClause') {
      commands.push(`test ${span(node)}`);
    } else if (isRedirect(node, type)) {
      const at = node.OpPos.Offset();
      const operator = REDIRECT_OPERATOR.exec(source.slice(index(at)))?.[0];
      const descriptor = node.N === null ? '' : node.N.Value;
      const target = node.Word === null ? '' : span(node.Word);
      redirects.push(`${descriptor}${operator ?? '?'} ${target}`);
    } else if (!STRUCTURE.has(type)) {
      other.push(`${type} ${span(node)}`);
    }
    return true;
  });
  return { commands, redirects, other, failure: undefined };
}

/** Node types of the simple subset, whose parts are compared through their commands and words. */
const STRUCTURE = new Set([
  'File',
  'Stmt',
  'BinaryCmd',
  'Comment',
  'Word',
  'Lit',
  'SglQuoted',
  'DblQuoted',
  'Assign',
  'ArrayExpr',
  'ArrayElem',
  'BinaryTest',
  'UnaryTest',
  'ParenTest',
]);

/** Redirection operators, longest first, as bash reads them at the operator's position. */
const REDIRECT_OPERATOR = /^(?:&>>|&>|<<<|<<-|<<|>>|>&|<&|<>|>\||>|<)/;

// Type guards on the name `syntax.NodeType` gave, asked once per node: it formats the Go type each time.
function isCall(node: sh.Node, type: string): node is sh.CallExpr {
  return node !== null && type === 'CallExpr';
}

function isTime(node: sh.Node, type: string): node is sh.TimeClause {
  return node !== null && type === 'TimeClause';
}

/** The spans of `time` and its `-p`. */
function timeWords(
  node: sh.TimeClause,
  source: string,
  index: (offset: number) => number,
): string[] {
  const at = index(node.Time.Offset());
  const words = [`${at}-${at + 4}`];
  const option = /^[ \t]+-p\b/.exec(source.slice(at + 4));
  if (node.PosixFormat && option !== null) {
    const start = at + 4 + option[0].length - 2;
    words.push(`${start}-${start + 2}`);
  }
  return words;
}

function isDeclaration(node: sh.Node, type: string): node is sh.DeclClause {
  return node !== null && type === 'DeclClause';
}

function isRedirect(node: sh.Node, type: string): node is sh.Redirect {
  return node !== null && type === 'Redirect';
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'Error' in error) {
    const method = error.Error;
    if (typeof method === 'function') return String(method.call(error));
  }
  return String(error);
}
