// @vitest-environment happy-dom
import type { AskUserAnswer, AskUserInput } from '@parley/core';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { AskUserForm, askUserQuestions } from './ask-user-form.js';

afterEach(cleanup);

const single: AskUserInput['questions'][number] = {
  header: 'Auth',
  question: 'Which sign-in should the app use?',
  context: 'The app has **no** accounts yet:\n\n```ts\nexport const users = [];\n```',
  options: [
    {
      label: 'Passkeys (Recommended)',
      description: 'No passwords to leak',
      preview: 'navigator.credentials.create()',
    },
    { label: 'Magic links', description: 'A link by email', preview: 'sendLink(email)' },
  ],
};
const multi: AskUserInput['questions'][number] = {
  header: 'Formats',
  question: 'Which formats should an export support?',
  multiSelect: true,
  options: [
    { label: 'Markdown', description: 'plain .md' },
    { label: 'HTML', description: 'a static page' },
    { label: 'PDF', description: 'for printing' },
  ],
};

function renderForm(questions: AskUserInput['questions']) {
  const sent: AskUserAnswer[][] = [];
  render(<AskUserForm input={{ questions }} onSubmit={(answers) => sent.push(answers)} />);
  return sent;
}

describe('AskUserForm', () => {
  it('renders a single-select question as radios with descriptions, its header chip, context as markdown, and the chosen preview beside them', async () => {
    const sent = renderForm([single]);
    const group = screen.getByRole('group', { name: single.question });
    expect(screen.getByText('Auth').className).toBe('chip');
    expect(within(group).getByText('no').tagName).toBe('STRONG');
    expect(within(group).getByText('export const users = [];').closest('pre')).not.toBeNull();
    const passkeys = within(group).getByRole('radio', { name: 'Passkeys (Recommended)' });
    expect(passkeys.getAttribute('aria-describedby')).not.toBeNull();
    expect(
      document.getElementById(passkeys.getAttribute('aria-describedby') ?? '')?.textContent,
    ).toBe('No passwords to leak');
    expect(
      within(group).getByRole('figure', { name: 'Preview of Passkeys (Recommended)' }),
    ).toBeTruthy();
    await userEvent.click(within(group).getByRole('radio', { name: 'Magic links' }));
    expect(
      within(group).getByRole('figure', { name: 'Preview of Magic links' }).textContent,
    ).toContain('sendLink(email)');
    await userEvent.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(sent).toEqual([[{ question: single.question, selected: ['Magic links'], other: null }]]);
  });

  it('focuses the first question when it appears, and Enter in "Other" sends', async () => {
    const sent = renderForm([single]);
    expect(document.activeElement).toBe(
      screen.getByRole('radio', { name: 'Passkeys (Recommended)' }),
    );
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Other' }),
      'SSO through our IdP{Enter}',
    );
    expect(sent).toEqual([
      [{ question: single.question, selected: [], other: 'SSO through our IdP' }],
    ]);
  });

  it('renders a multi-select question as checkboxes without previews, and keeps the options in their order', async () => {
    const sent = renderForm([multi]);
    const group = screen.getByRole('group', { name: multi.question });
    expect(within(group).queryAllByRole('radio')).toHaveLength(0);
    expect(within(group).queryByRole('figure')).toBeNull();
    await userEvent.click(within(group).getByRole('checkbox', { name: 'PDF' }));
    await userEvent.click(within(group).getByRole('checkbox', { name: 'Markdown' }));
    await userEvent.click(within(group).getByRole('checkbox', { name: 'HTML' }));
    await userEvent.click(within(group).getByRole('checkbox', { name: 'HTML' }));
    await userEvent.type(within(group).getByRole('textbox', { name: 'Other' }), 'EPUB');
    await userEvent.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(sent).toEqual([
      [{ question: multi.question, selected: ['Markdown', 'PDF'], other: 'EPUB' }],
    ]);
  });

  it('answers up to four questions with one "Send answers", and names the first one left unanswered', async () => {
    const questions = [
      single,
      multi,
      { ...multi, question: 'Which targets?', header: 'Targets' },
      { ...multi, question: 'Which locales?', header: 'Locales' },
    ];
    const sent = renderForm(questions);
    expect(screen.getAllByRole('button', { name: 'Send answers' })).toHaveLength(1);
    expect(screen.getAllByRole('group', { name: /\?$/ })).toHaveLength(4);
    await userEvent.click(screen.getByRole('radio', { name: 'Magic links' }));
    await userEvent.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(screen.getByRole('alert').textContent).toContain(multi.question);
    expect(sent).toEqual([]);
    for (const question of questions.slice(1)) {
      await userEvent.click(
        within(screen.getByRole('group', { name: question.question })).getByRole('checkbox', {
          name: 'HTML',
        }),
      );
    }
    await userEvent.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(sent[0]?.map((answer) => answer.selected)).toEqual([
      ['Magic links'],
      ['HTML'],
      ['HTML'],
      ['HTML'],
    ]);
  });
});

describe('askUserQuestions', () => {
  it('reads a valid AskUser input and refuses one core would refuse', () => {
    expect(askUserQuestions(JSON.stringify({ questions: [single] }))?.questions).toHaveLength(1);
    expect(askUserQuestions(JSON.stringify({ questions: [] }))).toBeUndefined();
    expect(askUserQuestions('{oops')).toBeUndefined();
    const previewOnMulti = {
      ...multi,
      options: multi.options.map((option) => ({ ...option, preview: 'x' })),
    };
    expect(askUserQuestions(JSON.stringify({ questions: [previewOnMulti] }))).toBeUndefined();
  });
});
