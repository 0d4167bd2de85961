import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import { CommandAnalysisError } from '../errors.js';

let loading: Promise<Parser> | undefined;
let ready: Parser | undefined;

/**
 * Loads the tree-sitter runtime and the bash grammar (WASM) once, on first
 * use, and shares the parser. A failed load is not remembered, so a later
 * call tries again.
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw new CommandAnalysisError('The bash grammar could not be loaded.', { cause: error });
  });
  return loading;
}

/** The parser if it has finished loading, for the synchronous permission questions. */
export function readyBashParser(): Parser | undefined {
  return ready;
}

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  ready = parser;
  return parser;
}
