import { describe, expect, it } from 'vitest';
import { layoutOptions, maxPreviewLines, previewLines } from './option-layout.js';
import type { PickerOption } from './option-layout.js';
import { visibleWidth } from './format.js';
import { plainColors } from './theme.js';

const options: PickerOption[] = [
  { label: 'Sidebar', description: 'Nav on the left', preview: '+--+----+\n|nav| page|' },
  { label: 'Top bar', description: 'Nav across the top', preview: '+-------+\n| nav   |' },
  { label: 'Other…', description: 'type your own answer' },
];

describe('layoutOptions', () => {
  it('lists options with aligned descriptions when nothing has a preview', () => {
    const plain = options.map(({ label, description }) => ({ label, description }));
    expect(layoutOptions(plain, 1, plainColors, 80)).toEqual([
      '  1. Sidebar  Nav on the left',
      '❯ 2. Top bar  Nav across the top',
      '  3. Other…   type your own answer',
    ]);
  });

  it('shows the active preview beside the options on a wide terminal', () => {
    const lines = layoutOptions(options, 0, plainColors, 100);
    expect(lines[0]).toBe('❯ 1. Sidebar  Nav on the left        │ +--+----+');
    expect(lines[1]).toBe('  2. Top bar  Nav across the top     │ |nav| page|');
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => visibleWidth(line) <= 100)).toBe(true);
  });

  it('drops descriptions beside the preview when that makes it fit', () => {
    const lines = layoutOptions(options, 1, plainColors, 50);
    expect(lines[0]).toBe('  1. Sidebar   │ +-------+');
    expect(lines.at(-1)).toBe('Nav across the top');
  });

  it('puts the preview below the options on a narrow terminal', () => {
    const lines = layoutOptions(options, 0, plainColors, 40);
    expect(lines.slice(0, 3)).toEqual([
      '❯ 1. Sidebar  Nav on the left',
      '  2. Top bar  Nav across the top',
      '  3. Other…   type your own answer',
    ]);
    expect(lines.slice(3)).toEqual(['', '│ +--+----+', '│ |nav| page|']);
  });

  it('says when the active option has no preview, and cuts long previews', () => {
    expect(layoutOptions(options, 2, plainColors, 100)[0]).toContain('(no preview)');
    const long = Array.from({ length: 40 }, (_, index) => `line ${index}`).join('\n');
    const cut = previewLines(long);
    expect(cut).toHaveLength(maxPreviewLines);
    expect(cut.at(-1)).toBe(`… ${40 - maxPreviewLines + 1} more lines`);
  });
});
