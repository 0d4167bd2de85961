/** A run of a word's characters, quoted (or escaped) or not: only unquoted braces expand. */
export type Segment = { text: string; quoted: boolean };

type Char = { char: string; quoted: boolean };

/** Most words a brace expression may become before we refuse to guess. */
export const MAX_BRACE_WORDS = 256;

/**
 * Bash brace expansion (`a{b,c}d`, `{1..3}`, `{a..e..2}`, nested), done on
 * the word before anything else, as bash does: `{rm,-rf,/}` becomes the
 * three words `rm -rf /`. Returns each resulting word as segments, the input
 * itself when there is nothing to expand, or undefined when it would make
 * more than `MAX_BRACE_WORDS` words.
 */
export function expandBraces(segments: readonly Segment[]): Segment[][] | undefined {
  const chars = segments.flatMap((segment) =>
    [...segment.text].map((char) => ({ char, quoted: segment.quoted })),
  );
  const words = expand(chars);
  return words === undefined ? undefined : words.map(toSegments);
}

function expand(chars: readonly Char[]): Char[][] | undefined {
  for (let open = 0; open < chars.length; open++) {
    if (!isUnquoted(chars[open], '{') || isUnquoted(chars[open - 1], '$')) continue;
    const match = matchBrace(chars, open);
    if (match === undefined) continue;
    const body = chars.slice(open + 1, match.close);
    const alternatives =
      match.commas.length > 0
        ? split(
            body,
            match.commas.map((at) => at - open - 1),
          )
        : sequence(body);
    if (alternatives === 'too-many') return undefined;
    if (alternatives === undefined) continue;
    const before = chars.slice(0, open);
    const results: Char[][] = [];
    for (const alternative of alternatives) {
      const rest = expand([...alternative, ...chars.slice(match.close + 1)]);
      if (rest === undefined) return undefined;
      for (const tail of rest) {
        results.push([...before, ...tail]);
        if (results.length > MAX_BRACE_WORDS) return undefined;
      }
    }
    return results;
  }
  return [[...chars]];
}

function isUnquoted(item: Char | undefined, char: string): boolean {
  return item !== undefined && !item.quoted && item.char === char;
}

/** The `}` closing the brace at `open`, with the positions of its top-level commas. */
function matchBrace(
  chars: readonly Char[],
  open: number,
): { close: number; commas: number[] } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let at = open + 1; at < chars.length; at++) {
    if (isUnquoted(chars[at], '{')) depth++;
    else if (isUnquoted(chars[at], '}')) {
      if (depth === 0) return { close: at, commas };
      depth--;
    } else if (depth === 0 && isUnquoted(chars[at], ',')) commas.push(at);
  }
  return undefined;
}

function split(body: readonly Char[], commas: readonly number[]): Char[][] {
  const parts: Char[][] = [];
  let start = 0;
  for (const comma of commas) {
    parts.push(body.slice(start, comma));
    start = comma + 1;
  }
  parts.push(body.slice(start));
  return parts;
}

/** `{1..5}`, `{10..1..3}`, `{01..10}`, `{a..e}`: the items, or undefined when the body is not a sequence. */
function sequence(body: readonly Char[]): Char[][] | 'too-many' | undefined {
  if (body.some((item) => item.quoted)) return undefined;
  const text = body.map((item) => item.char).join('');
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numeric ?? letters;
  if (match === null) return undefined;
  const toNumber = (value: string): number =>
    numeric === null ? value.charCodeAt(0) : Number(value);
  const from = toNumber(match[1] ?? '');
  const to = toNumber(match[2] ?? '');
  const step = Math.max(1, Math.abs(Number(match[3] ?? '1')) || 1);
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_WORDS) return 'too-many';
  const padded =
    numeric !== null && [match[1], match[2]].some((value) => /^-?0\d/.test(value ?? ''));
  const width = padded ? Math.max((match[1] ?? '').length, (match[2] ?? '').length) : 0;
  const items: Char[][] = [];
  for (let i = 0; i < count; i++) {
    const value = from <= to ? from + i * step : from - i * step;
    const item = numeric === null ? String.fromCharCode(value) : String(value).padStart(width, '0');
    items.push([...item].map((char) => ({ char, quoted: false })));
  }
  return items;
}

function toSegments(chars: readonly Char[]): Segment[] {
  const segments: Segment[] = [];
  for (const { char, quoted } of chars) {
    const last = segments.at(-1);
    if (last !== undefined && last.quoted === quoted) last.text += char;
    else segments.push({ text: char, quoted });
  }
  return segments;
}
