import { describe, expect, it } from 'vitest';
import type { AllowedBy, PermissionMode } from '@parley/core';
import { decisionPermitsWrites } from './decision-limit.js';

describe('decisionPermitsWrites', () => {
  const modes: PermissionMode[] = ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask'];

  it('read-only never writes; a rule, a yes or an unsaid decision keep the analysis', () => {
    for (const mode of modes) {
      expect(decisionPermitsWrites('readOnly', mode, true)).toBe(false);
      for (const allowedBy of ['rule', 'user', undefined] as (AllowedBy | undefined)[]) {
        expect(decisionPermitsWrites(allowedBy, mode, false)).toBe(true);
      }
    }
  });

  it('a mode permits writes only when it writes unasked, or with auto-allow', () => {
    const writing = modes.filter((mode) => decisionPermitsWrites('mode', mode, false));
    expect(writing).toEqual(['accept_edits', 'bypass', 'dont_ask']);
    expect(decisionPermitsWrites('mode', 'default', true)).toBe(true);
  });
});
