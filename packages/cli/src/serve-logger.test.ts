import { describe, expect, it } from 'vitest';
import { serveLogger } from './serve-logger.js';

describe('serveLogger', () => {
  it('prints warnings and errors with their details, one line each, and drops the rest', () => {
    const lines: string[] = [];
    const logger = serveLogger((text) => lines.push(text));
    logger.debug('quiet');
    logger.info('quiet too');
    logger.warn('Cancelling replies.', { sessions: ['s1'] });
    logger.error('The expiry sweep failed.', { error: 'Error: disk gone' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\S+Z warn Cancelling replies\. \{"sessions":\["s1"\]\}\n$/);
    expect(lines[1]).toMatch(
      /^\S+Z error The expiry sweep failed\. \{"error":"Error: disk gone"\}\n$/,
    );
  });
});
