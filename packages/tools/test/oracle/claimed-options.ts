import { optionTable } from '../../src/bash/option-tables.js';
import { quote, type Draw, type Word } from './words.js';

/**
 * Options the proof itself calls harmless: drawn from the analysis's own
 * option tables (`option-tables.ts`), only those not marked `!`, each with
 * a value from a pool that holds the dangerous ones too. Whatever such an
 * option does with any value must be reading; if it writes, the table's
 * claim is wrong and the oracle says so.
 */

/** Values for options whose kind the table does not say. */
const ANY_VALUE: readonly Word[] = [
  ...['out.txt', 'README.md', '.git/hooks/pre-commit', '.git/config', '1', '0', 'x', '-'].map(
    (text) => ({ text, raw: false }),
  ),
  ...['/dev/tcp/127.0.0.1/9', 'id', 'sh', '%p', 'always', 'src', '/proc/self/cwd/out.txt'].map(
    (text) => ({ text, raw: false }),
  ),
  { text: '~/.bashrc', raw: true },
];

/** 1–3 options of `program` that its table marks harmless, as words; empty when it has no table. */
export function claimedOptions(draw: Draw, program: string): string[] {
  const table = optionTable(program);
  if (table === undefined) return [];
  const safe = [
    ...[...table.short].map(([name, option]) => ({ long: false, name, option })),
    ...[...table.long].map(([name, option]) => ({ long: true, name, option })),
  ].filter((entry) => entry.option.definition.safe);
  if (safe.length === 0) return [];
  const words: string[] = [];
  for (let i = draw.int(1, 3); i > 0; i--) {
    const { long, name, option } = draw.pick(safe);
    const written =
      long && table.abbreviate && draw.chance(40) ? name.slice(0, draw.int(1, name.length)) : name;
    const flag = long ? `--${written}` : `-${written}`;
    const given = draw.pick(ANY_VALUE);
    switch (option.value) {
      case 'none':
        words.push(quote(draw, { text: flag, raw: false }));
        break;
      case 'optional':
        words.push(
          draw.chance(50)
            ? quote(draw, { text: flag, raw: false })
            : quote(draw, { text: `${flag}${long ? '=' : ''}${given.text}`, raw: given.raw }),
        );
        break;
      case 'pair':
        words.push(
          quote(draw, { text: flag, raw: false }),
          quote(draw, given),
          quote(draw, draw.pick(ANY_VALUE)),
        );
        break;
      default:
        words.push(quote(draw, { text: flag, raw: false }), quote(draw, given));
    }
  }
  return words;
}
