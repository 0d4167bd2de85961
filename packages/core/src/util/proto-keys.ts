/**
 * The dotted path of the first own `__proto__` key in `value`, if any.
 * `JSON.parse` can make one, but any copy made by assignment (a validator's,
 * anyone's) drops it, so callers refuse such data rather than change it.
 */
export function protoKeyPath(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : Object.entries(value);
  for (const [key, entry] of entries) {
    const here = path === '' ? key : `${path}.${key}`;
    if (key === '__proto__') return here;
    const found = protoKeyPath(entry, here);
    if (found !== undefined) return found;
  }
  return undefined;
}
