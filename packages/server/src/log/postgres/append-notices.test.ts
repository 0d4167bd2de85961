import { describe, expect, it } from 'vitest';
import { formatAppendNotice, parseAppendNotice } from './append-notices.js';

describe('append notices', () => {
  it('carry the session id and the highest number stored, ids with colons included', () => {
    for (const notice of [
      { sessionId: 's1', seq: 1 },
      { sessionId: 'tenant:a:session', seq: 123_456 },
    ]) {
      expect(parseAppendNotice(formatAppendNotice(notice))).toEqual(notice);
    }
  });

  it('ignore anything else said on the channel', () => {
    for (const payload of [
      '',
      's1',
      ':5',
      's1:0',
      's1:x',
      's1:-3',
      's1:1e3',
      's1:9999999999999999',
    ]) {
      expect(parseAppendNotice(payload)).toBeUndefined();
    }
  });
});
