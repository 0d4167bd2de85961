import { userInfo } from 'node:os';

/** Who answers the prompts, for the audit trail: the login name. */
export function approverName(env: NodeJS.ProcessEnv): string {
  try {
    const name = userInfo().username;
    if (name !== '') return name;
  } catch {
    // no passwd entry (some containers): fall back to the environment
  }
  return env['USER'] ?? env['LOGNAME'] ?? 'console';
}
