import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isNumberKey,
  isUpKey,
  makeTheme,
  usePrefix,
  useState,
  useKeypress,
} from '@inquirer/core';
import type { PickerOption } from './option-layout.js';
import { layoutOptions } from './option-layout.js';
import type { Colors } from './theme.js';

/** What the option picker is given. */
export type OptionPickerConfig = {
  message: string;
  options: PickerOption[];
  colors: Colors;
  /** The terminal width now (read on every render, so resizing re-lays out). */
  columns: () => number;
};

const hideCursor = '\x1b[?25l';

/**
 * A single-select prompt that shows every option with its description and,
 * beside the options (or below them on a narrow terminal), the preview of
 * the option under the cursor. Resolves to the chosen option's index.
 * Arrow keys move, digits jump, Enter chooses.
 */
export const optionPicker = createPrompt<number, OptionPickerConfig>((config, done) => {
  const theme = makeTheme({});
  const [status, setStatus] = useState<'idle' | 'done'>('idle');
  const [active, setActive] = useState(0);
  const prefix = usePrefix({ status, theme });
  const count = config.options.length;

  useKeypress((key, readline) => {
    if (isEnterKey(key)) {
      setStatus('done');
      done(active);
    } else if (isUpKey(key) || isDownKey(key)) {
      readline.clearLine(0);
      setActive((active + (isUpKey(key) ? -1 : 1) + count) % count);
    } else if (isNumberKey(key)) {
      readline.clearLine(0);
      const index = Number(key.name) - 1;
      if (index >= 0 && index < count) setActive(index);
    } else {
      readline.clearLine(0);
    }
  });

  const message = theme.style.message(config.message, status);
  if (status === 'done') {
    return `${prefix} ${message} ${theme.style.answer(config.options[active]?.label ?? '')}`;
  }
  const body = layoutOptions(config.options, active, config.colors, config.columns());
  const help = config.colors.dim('↑↓ move · 1-9 jump · ⏎ choose');
  return `${[`${prefix} ${message}`, ...body, help].join('\n')}${hideCursor}`;
});
