// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DiffView } from './diff-view.js';
import { ToolInputView } from './tool-input-view.js';

afterEach(cleanup);

describe('DiffView', () => {
  it('marks removed lines with del and -, added ones with ins and +, and keeps the rest', () => {
    render(
      <DiffView label="notes.md" before={'one\ntwo\nthree\n'} after={'one\n2\nthree\nfour\n'} />,
    );
    const figure = screen.getByRole('figure', { name: 'Changes to notes.md' });
    expect([...figure.querySelectorAll('del')].map((line) => line.textContent)).toEqual(['- two']);
    expect([...figure.querySelectorAll('ins')].map((line) => line.textContent)).toEqual([
      '+ 2',
      '+ four',
    ]);
    expect(figure.querySelector('pre')?.textContent).toBe(
      '  one' + '- two' + '+ 2' + '  three' + '+ four',
    );
    expect(figure.querySelector('figcaption')?.textContent).toBe('notes.md +2 −1');
  });

  it('shows a new file as all additions', () => {
    render(<DiffView label="new.txt" before="" after={'a\nb'} />);
    expect(screen.getByRole('figure').querySelectorAll('ins')).toHaveLength(2);
    expect(screen.getByRole('figure').querySelectorAll('del')).toHaveLength(0);
  });
});

describe('ToolInputView', () => {
  it('shows a Bash command as code', () => {
    render(<ToolInputView name="Bash" input={JSON.stringify({ command: 'npm test -- --run' })} />);
    expect(screen.getByLabelText('Command').querySelector('code')?.textContent).toBe(
      'npm test -- --run',
    );
  });

  it('shows an Edit as the diff of old_string to new_string, and a Write as its new content', () => {
    const { unmount } = render(
      <ToolInputView
        name="Edit"
        input={JSON.stringify({
          file_path: 'src/a.ts',
          old_string: 'let x = 1;',
          new_string: 'const x = 1;',
        })}
      />,
    );
    const edit = screen.getByRole('figure', { name: 'Changes to src/a.ts' });
    expect(edit.querySelector('del')?.textContent).toBe('- let x = 1;');
    expect(edit.querySelector('ins')?.textContent).toBe('+ const x = 1;');
    unmount();
    render(
      <ToolInputView name="Write" input={JSON.stringify({ file_path: 'b.md', content: '# B' })} />,
    );
    expect(
      screen.getByRole('figure', { name: 'Changes to b.md' }).querySelector('ins')?.textContent,
    ).toBe('+ # B');
  });

  it('shows any other tool as its fields, and input that is not an object as it came', () => {
    const { unmount } = render(
      <ToolInputView
        name="deploy"
        input={JSON.stringify({ environment: 'staging', replicas: 2 })}
      />,
    );
    expect(screen.getAllByRole('term').map((term) => term.textContent)).toEqual([
      'environment',
      'replicas',
    ]);
    expect(screen.getAllByRole('definition').map((value) => value.textContent)).toEqual([
      'staging',
      '2',
    ]);
    unmount();
    render(<ToolInputView name="deploy" input="{not json" />);
    expect(screen.getByText('{not json')).toBeTruthy();
  });
});
