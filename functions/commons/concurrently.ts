/**
 * Runs `task` on every item, at most `limit` at a time. After a failure no further item starts; the first failure
 * is thrown once every started task has ended (none is left running unobserved).
 */
export async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  // Zero workers would "finish" without running anything: refuse rather than report work not done.
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`eachConcurrently needs a limit of 1 or more, not ${limit}`);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < items.length) {
      try {
        await task(items[next++] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}
