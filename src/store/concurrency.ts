/** `items.map(action)` with at most `limit` actions in flight; results in the items' order. */
export async function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  limit: number,
  action: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await action(items[index] as Item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
