import type { Word } from './syntax.js';
import { wordSuffix } from './syntax.js';

/** One option of a command line: `-r`, `-t DIR`, `--output=x`. */
export type Option = { name: string; value: Word | undefined };

/** A command's arguments split into options and operands. */
export type ScannedArguments = { options: Option[]; operands: Word[] };

/** Which options take a value: short letters (`'tS'`) and long names (`['target-directory']`). */
export type OptionSpec = { short?: string; long?: readonly string[] };

/**
 * Splits arguments the way getopt does: combined short flags (`-rf` is `-r
 * -f`), a short option's value attached or in the next word (`-tDIR`, `-t
 * DIR`), `--long=value` or `--long value` for listed long options, and `--`
 * ending the options. A lone `-` is an operand. Options may follow operands
 * (GNU style), so `rm x -rf` still shows `-r` and `-f`.
 */
export function scanArguments(args: readonly Word[], spec: OptionSpec = {}): ScannedArguments {
  const options: Option[] = [];
  const operands: Word[] = [];
  const short = spec.short ?? '';
  const long = new Set(spec.long ?? []);
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) continue;
    const text = word.value;
    if (text === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      if (equals !== -1) {
        options.push({ name: text.slice(0, equals), value: wordSuffix(word, equals + 1) });
      } else if (long.has(text.slice(2))) {
        options.push({ name: text, value: args[++i] });
      } else {
        options.push({ name: text, value: undefined });
      }
      continue;
    }
    if (text.startsWith('-') && text.length > 1) {
      for (let j = 1; j < text.length; j++) {
        const letter = text[j] ?? '';
        if (short.includes(letter)) {
          const rest = text.slice(j + 1);
          options.push({
            name: `-${letter}`,
            value: rest === '' ? args[++i] : wordSuffix(word, j + 1),
          });
          break;
        }
        options.push({ name: `-${letter}`, value: undefined });
      }
      continue;
    }
    operands.push(word);
  }
  return { options, operands };
}

/** Whether any option has one of these names (`-r`, `--recursive`). */
export function hasOption(scanned: ScannedArguments, ...names: string[]): boolean {
  return scanned.options.some((option) => names.includes(option.name));
}

/** The values given to options of these names. */
export function optionValues(scanned: ScannedArguments, ...names: string[]): Word[] {
  return scanned.options.flatMap((option) =>
    names.includes(option.name) && option.value !== undefined ? [option.value] : [],
  );
}
