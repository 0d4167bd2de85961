import type { Logger } from '@parley/core';

/**
 * The logger `parley serve` gives the server: warnings and errors (a failed
 * expiry sweep, an event log write that failed, a reply cancelled at
 * shutdown) are printed as one line each, with their details as JSON, to
 * `write` (standard error by default); debug and info are dropped.
 */
export function serveLogger(
  write: (text: string) => void = (text) => {
    process.stderr.write(text);
  },
): Logger {
  const line =
    (level: string) =>
    (message: string, data?: Record<string, unknown>): void => {
      const details = data === undefined ? '' : ` ${JSON.stringify(data)}`;
      write(`${new Date().toISOString()} ${level} ${message}${details}\n`);
    };
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: line('warn'),
    error: line('error'),
  };
}
