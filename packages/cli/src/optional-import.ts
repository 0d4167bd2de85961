/**
 * Loading sibling packages that may not be in this build yet (the CLI is
 * written against their documented names; see model-spec.ts and tool-set.ts).
 */

/** A plain object (a module namespace counts). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A class that takes one options object. */
export function isConstructor(
  value: unknown,
): value is new (options: Record<string, unknown>) => unknown {
  return typeof value === 'function' && typeof value.prototype === 'object';
}

function isMissingModule(error: unknown): boolean {
  if (!isRecord(error)) return false;
  const code = error['code'];
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
}

/** The module's exports, or undefined when the module (or that subpath) does not exist. */
export async function importOptional(
  specifier: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const loaded: unknown = await import(specifier);
    return isRecord(loaded) ? loaded : undefined;
  } catch (error) {
    if (isMissingModule(error)) return undefined;
    throw error;
  }
}
