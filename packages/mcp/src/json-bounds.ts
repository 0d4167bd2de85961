/** The deepest nesting of server output Parley keeps (objects and arrays). */
export const MAX_JSON_DEPTH = 64;

/**
 * Why a value from a server cannot be kept in the session as it is, or
 * undefined when it can: nested deeper than `maxDepth`, or larger than
 * `maxChars` as JSON. Walks without recursion, so no depth makes it throw.
 */
export function jsonProblem(
  value: unknown,
  limits: { maxDepth?: number; maxChars: number },
): string | undefined {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined) break;
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth) return `nested deeper than ${maxDepth} levels`;
    const children: unknown[] = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) stack.push([child, depth + 1]);
  }
  const size = JSON.stringify(value)?.length ?? 0;
  return size > limits.maxChars
    ? `${size} characters as JSON (at most ${limits.maxChars})`
    : undefined;
}
