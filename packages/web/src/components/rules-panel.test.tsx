// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { RulesPanel } from './rules-panel.js';

afterEach(cleanup);

const permission = { mode: 'default' as const, rules: [] };
const revoke = async (): Promise<void> => undefined;

describe('RulesPanel', () => {
  it('shows the sandbox Bash runs commands in, and says so when there is none', () => {
    render(<RulesPanel permission={permission} sandbox="bubblewrap" onRevoke={revoke} />);
    expect(screen.getByText('bubblewrap')).toBeTruthy();
    cleanup();
    render(<RulesPanel permission={permission} sandbox="none" onRevoke={revoke} />);
    expect(screen.getByText(/Bash runs commands without one/)).toBeTruthy();
    cleanup();
    render(<RulesPanel permission={permission} onRevoke={revoke} />);
    expect(screen.queryByText(/Sandbox/)).toBeNull();
  });

  it("offers Revoke for a person's rule, not for the operator's", () => {
    const rules = {
      mode: 'default' as const,
      rules: [
        {
          toolName: 'write_note',
          ruleContent: null,
          behavior: 'allow' as const,
          source: 'suggested',
        },
        { toolName: 'wipe', ruleContent: null, behavior: 'deny' as const, source: 'policy' },
      ],
    };
    render(<RulesPanel permission={rules} onRevoke={revoke} />);
    expect(screen.getAllByRole('button', { name: /^Revoke rule/ })).toHaveLength(1);
    expect(screen.getByText('(set by the operator)')).toBeTruthy();
  });
});
