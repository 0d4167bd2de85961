/**
 * Runs several async generators at once and yields their values as they
 * come; each generator's own values keep their order. If the consumer stops
 * early, every generator is closed.
 */
export async function* mergeGenerators<T>(
  generators: AsyncGenerator<T, void>[],
): AsyncGenerator<T, void> {
  if (generators.length === 1 && generators[0] !== undefined) {
    yield* generators[0];
    return;
  }
  type Pending = Promise<{ index: number; result: IteratorResult<T, void> }>;
  const pending = new Map<number, Pending>();
  const pull = (index: number): void => {
    const generator = generators[index];
    if (generator === undefined) return;
    pending.set(
      index,
      generator.next().then((result) => ({ index, result })),
    );
  };
  generators.forEach((_, index) => pull(index));
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      if (result.done === true) {
        pending.delete(index);
      } else {
        pull(index);
        yield result.value;
      }
    }
  } finally {
    await Promise.allSettled(generators.map((generator) => generator.return(undefined)));
  }
}
