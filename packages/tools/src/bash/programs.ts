import path from 'node:path';

/** Directories whose programs are the standard ones (`/bin/rm` is `rm`). */
const SYSTEM_BIN = /^\/(?:usr\/)?(?:local\/)?s?bin\/[^/]+$/;

/**
 * The name a command is known by, for looking up what it does: `rm` for
 * `rm`, `/bin/rm` and `/usr/local/bin/rm`. A program elsewhere (`./rm`,
 * `/tmp/x/rm`) keeps its path, so it is never mistaken for the real one.
 */
export function knownProgram(name: string): string {
  return SYSTEM_BIN.test(name) ? path.posix.basename(name) : name;
}

/**
 * The bare file name of the program, for safety checks that must not be
 * dodged by a path (`./sudo`, `/opt/bin/dd` are treated like `sudo`, `dd`).
 */
export function programBaseName(name: string): string {
  return path.posix.basename(name);
}
