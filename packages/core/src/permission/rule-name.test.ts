import { describe, expect, it } from 'vitest';
import { PermissionEngine } from './engine.js';
import { ruleNameMatches } from './rule-name.js';
import type { PermissionSubject } from './types.js';

const subject = (name: string): PermissionSubject<unknown> => ({
  name,
  isReadOnly: () => false,
  checkPermissions: () => ({ behavior: 'passthrough', message: '' }),
  matchRule: (content) => content === null,
  suggestRules: () => [],
});

describe('rule tool names: exact, or a `__*` namespace', () => {
  it('matches the same name and the tools of a namespace only', () => {
    expect(ruleNameMatches('Bash', 'Bash')).toBe(true);
    expect(ruleNameMatches('mcp__github__*', 'mcp__github__create_issue')).toBe(true);
    expect(ruleNameMatches('mcp__github__*', 'mcp__githubx__create_issue')).toBe(false);
    expect(ruleNameMatches('mcp__github__*', 'mcp__github__')).toBe(false);
    expect(ruleNameMatches('*', 'Bash')).toBe(false);
    expect(ruleNameMatches('Bash*', 'Bash')).toBe(false);
    expect(ruleNameMatches('__*', '__x')).toBe(false);
  });

  it('the engine applies namespace rules: deny beats allow, allow clears the ask', async () => {
    const issue = subject('mcp__github__create_issue');
    const engine = new PermissionEngine({
      allowRules: [
        { toolName: 'mcp__github__*', ruleContent: null, behavior: 'allow', source: 'test' },
      ],
    });
    expect((await engine.check(issue, {})).behavior).toBe('allow');
    expect((await engine.check(subject('mcp__gitlab__create_issue'), {})).behavior).toBe('ask');
    engine.addRule({
      toolName: 'mcp__github__*',
      ruleContent: null,
      behavior: 'deny',
      source: 'test',
    });
    expect(await engine.check(issue, {})).toMatchObject({
      behavior: 'deny',
      message: 'Permission to use mcp__github__create_issue has been denied',
    });
  });
});
