import { padVisible, sideBySide, truncate, visibleWidth } from './format.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** One choice of a single-select question. */
export type PickerOption = { label: string; description: string; preview?: string };

/** Below this width of the preview column, previews go under the options. */
export const minPreviewWidth = 32;

/** Previews longer than this many lines are cut. */
export const maxPreviewLines = 16;

/**
 * The option lines: cursor, number, label (padded so descriptions line up)
 * and a dim description.
 */
export function optionLines(
  options: readonly PickerOption[],
  active: number,
  colors: Colors,
  width: number,
): string[] {
  const labelWidth = Math.max(...options.map((option) => visibleWidth(option.label)));
  return options.map((option, index) => {
    const isActive = index === active;
    const cursor = isActive ? colors.cyan('❯') : ' ';
    const label = padVisible(option.label, labelWidth);
    const head = `${cursor} ${index + 1}. ${isActive ? colors.cyan(label) : label}`;
    const room = width - visibleWidth(head) - 2;
    const description =
      option.description === '' || room < 8
        ? ''
        : `  ${colors.dim(truncate(option.description, room))}`;
    return head + description;
  });
}

/** The preview as plain lines (not painted), cut to `maxPreviewLines`. */
export function previewLines(preview: string): string[] {
  const lines = preview.replace(/\s+$/, '').split('\n');
  if (lines.length <= maxPreviewLines) return lines;
  return [
    ...lines.slice(0, maxPreviewLines - 1),
    `… ${lines.length - maxPreviewLines + 1} more lines`,
  ];
}

/**
 * Lays out the options and the active option's preview: side by side when
 * the terminal is wide enough, the preview below the options otherwise.
 * Options without previews are just listed.
 */
export function layoutOptions(
  options: readonly PickerOption[],
  active: number,
  colors: Colors,
  width: number,
): string[] {
  const anyPreview = options.some((option) => option.preview !== undefined);
  const preview = options[active]?.preview;
  if (!anyPreview) return optionLines(options, active, colors, width);
  const right =
    preview === undefined
      ? ['(no preview)']
      : previewLines(preview).map((line) => `${glyphs.bar} ${line}`);
  const paint = (line: string): string =>
    line.startsWith(glyphs.bar)
      ? colors.dim(glyphs.bar) + line.slice(glyphs.bar.length)
      : colors.dim(line);
  const layout = { minRight: minPreviewWidth, paint };
  const withDescriptions = optionLines(options, active, colors, width);
  const full = sideBySide(withDescriptions, right, width, layout);
  if (full !== undefined) return full;
  // Not enough room for descriptions and a preview: drop the descriptions
  // beside the preview and show the active one under the list.
  const labelsOnly = options.map((option) => ({ ...option, description: '' }));
  const compact = sideBySide(optionLines(labelsOnly, active, colors, width), right, width, layout);
  const description = options[active]?.description ?? '';
  if (compact !== undefined) {
    return description === ''
      ? compact
      : [...compact, '', colors.dim(truncate(description, width))];
  }
  return [
    ...withDescriptions,
    '',
    ...right.map((line) => paint(truncate(line, Math.max(8, width)))),
  ];
}
