/**
 * Reading awk program texts far enough to judge them: what is code and
 * what is a string or regular-expression literal.
 */

/**
 * The awk program with its string and regular-expression literals blanked
 * out, so that a `>` or a name inside them is not taken for code; undefined
 * when a literal does not end. A `/` starts a regular expression where an
 * operand is expected (after `(`, `,`, `~`, `!`, `&`, `|`, `{`, `;`, a newline or
 * at the start), otherwise it divides.
 */
export function awkCode(text: string): string | undefined {
  let code = '';
  let previous = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    const regex = char === '/' && /^[(,~!&|{;\n]?$/.test(previous);
    if (char === '"' || regex) {
      const end = literalEnd(text, i, char);
      if (end === undefined) return undefined;
      code += ' ';
      i = end;
      previous = 'x';
      continue;
    }
    code += char;
    if (!/\s/.test(char) || char === '\n') previous = char;
  }
  return code;
}

/** The index of the quote or slash that closes the literal opened at `start`. */
function literalEnd(text: string, start: number, close: string): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') i++;
    else if (char === close) return i;
    else if (char === '\n') return undefined;
  }
  return undefined;
}

/** Whether awk code (see `awkCode`) can run a command: `system()`, a pipe (not `||`), `getline`, `@` directives. */
export function awkRunsCommands(code: string): boolean {
  return /system|getline|(?<!\|)\|(?!\|)|[@`]/.test(code);
}
