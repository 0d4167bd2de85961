import type { Logger } from '@parley/core';

/** The default logger of every adapter: drops everything (libraries never print). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** The variadic logger shape the OpenAI and Anthropic SDKs accept. */
export type SdkLogger = {
  error: (message: string, ...rest: unknown[]) => void;
  warn: (message: string, ...rest: unknown[]) => void;
  info: (message: string, ...rest: unknown[]) => void;
  debug: (message: string, ...rest: unknown[]) => void;
};

/**
 * Routes an SDK's own log lines into a Parley `Logger`, so SDK messages (for
 * example "Could not parse message into JSON") never reach the console.
 */
export function toSdkLogger(logger: Logger, provider: string): SdkLogger {
  const data = (rest: unknown[]): Record<string, unknown> =>
    rest.length === 0 ? { provider } : { provider, details: rest };
  return {
    error: (message, ...rest) => logger.error(message, data(rest)),
    warn: (message, ...rest) => logger.warn(message, data(rest)),
    info: (message, ...rest) => logger.info(message, data(rest)),
    debug: (message, ...rest) => logger.debug(message, data(rest)),
  };
}
