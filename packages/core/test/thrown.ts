/**
 * For tests: the error of class `kind` that `run` throws. Anything else
 * thrown is rethrown, and throwing nothing fails, so a test cannot pass by
 * accident.
 */
export function thrownBy<E extends Error>(
  kind: abstract new (...args: never[]) => E,
  run: () => unknown,
): E {
  try {
    run();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}`);
}
