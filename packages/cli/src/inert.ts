/**
 * Text that did not come from Parley itself (model text, tool inputs and
 * results, MCP messages, names) made safe to print: every control
 * character is shown, not obeyed. C0 controls (ESC, BEL, BS, a lone CR, …)
 * become their Unicode control pictures (`␛`), so a CSI or OSC sequence
 * (colours, clearing the screen, OSC 8 links, OSC 52 clipboard writes)
 * prints as inert text; C1 controls (U+0080–U+009F, among them the
 * one-byte CSI and OSC), bidirectional overrides and isolates, and line
 * and paragraph separators show as `⟨U+202E⟩`. Newlines and tabs stay.
 * Text without controls comes back unchanged. Every printer of `parley
 * chat` passes untrusted text through this one function.
 */
export function inert(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(unsafe, visible);
}

/** C0 (but newline and tab), DEL, C1, bidi controls, and the Unicode line separators. */
const unsafe =
  // eslint-disable-next-line no-control-regex -- matching controls is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * JSON text with those characters written as `\uXXXX` escapes: the same
 * value, with nothing for the terminal to obey (for JSON a person edits).
 * `JSON.stringify` escapes C0 controls itself, not C1 or bidi controls.
 */
export function inertJson(json: string): string {
  return json.replace(unsafe, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}
