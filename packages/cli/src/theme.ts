import picocolors from 'picocolors';

/** The colour functions the CLI paints with (picocolors' formatter set). */
export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Colours for a stream: on for a terminal unless NO_COLOR is set, forced on
 * by FORCE_COLOR. Rendering functions take `Colors` as a parameter so tests
 * can render without escape codes.
 */
export function colorsFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Colors {
  const forced = env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0';
  const disabled = env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '';
  return picocolors.createColors(forced || (!disabled && stream.isTTY === true));
}

/** Colours that do nothing: plain text, for tests and pipes. */
export const plainColors: Colors = picocolors.createColors(false);

/** The glyphs the console uses, in one place so they stay consistent. */
export const glyphs = {
  call: '●',
  result: '⎿',
  success: '✓',
  error: '✗',
  denied: '⊘',
  interrupted: '◼',
  bar: '│',
  ask: '?',
  user: '›',
} as const;
