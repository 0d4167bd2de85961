import { describe, expect, it } from 'vitest';
import { bashRuleMatches, escapeRuleText } from './rules.js';

describe('bashRuleMatches', () => {
  it('matches prefix:* on the whole word only', () => {
    expect(bashRuleMatches('git:*', 'git')).toBe(true);
    expect(bashRuleMatches('git:*', 'git status')).toBe(true);
    expect(bashRuleMatches('git:*', 'github')).toBe(false);
    expect(bashRuleMatches('git:*', 'xgit status')).toBe(false);
    expect(bashRuleMatches('npm run:*', 'npm run build')).toBe(true);
    expect(bashRuleMatches('npm run:*', 'npm run-script build')).toBe(false);
    expect(bashRuleMatches('npm run:*', 'npm runner')).toBe(false);
  });

  it('treats a pattern with * as a full-match wildcard', () => {
    expect(bashRuleMatches('git * push', 'git origin push')).toBe(true);
    expect(bashRuleMatches('git * push', 'git origin push --force')).toBe(false);
    expect(bashRuleMatches('npm run *', 'npm run build')).toBe(true);
    expect(bashRuleMatches('*', 'anything at all')).toBe(true);
  });

  it('treats anything else as a substring', () => {
    expect(bashRuleMatches('status', 'git status -s')).toBe(true);
    expect(bashRuleMatches('push', 'git status')).toBe(false);
  });

  it('reads \\* and \\\\ as literal characters', () => {
    expect(bashRuleMatches('rm \\*.bak:*', 'rm *.bak')).toBe(true);
    expect(bashRuleMatches('rm \\*.bak:*', 'rm x.bak')).toBe(false);
    expect(bashRuleMatches('echo \\*', 'echo * here')).toBe(true);
    expect(bashRuleMatches('echo \\*', 'echo x')).toBe(false);
    expect(bashRuleMatches('a\\\\b', 'echo a\\b')).toBe(true);
  });

  it('supports a wildcard inside a prefix rule', () => {
    expect(bashRuleMatches('docker * logs:*', 'docker compose logs -f')).toBe(true);
    expect(bashRuleMatches('docker * logs:*', 'docker compose up')).toBe(false);
  });

  it('escapes text so it matches itself literally', () => {
    const text = 'rm *.o \\x';
    expect(bashRuleMatches(`${escapeRuleText(text)}:*`, text)).toBe(true);
    expect(bashRuleMatches(`${escapeRuleText(text)}:*`, 'rm a.o \\x')).toBe(false);
  });
});
