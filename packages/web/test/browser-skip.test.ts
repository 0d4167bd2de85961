import { describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser.js';

describe('when the browser tests skip', () => {
  it('skips without Chromium outside CI, with the reason; runs with it, and always in CI', () => {
    expect(browserSkipReason({}, false, '/nowhere/chromium')).toBe(
      'Chromium is not at /nowhere/chromium (apt-get install -y chromium; in CI these tests run)',
    );
    expect(browserSkipReason({}, true)).toBeUndefined();
    expect(browserSkipReason({ CI: 'true' }, false)).toBeUndefined();
  });
});
