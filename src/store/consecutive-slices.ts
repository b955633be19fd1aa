/**
 * Splits `items` into consecutive, never empty slices: each item joins the slice before it
 * while `joins(item, slice, sliceBytes)` says so (the slice is never empty when asked), else
 * starts the next one.
 */
export function consecutiveSlices<Item extends { bytes: number }>(
  items: readonly Item[],
  joins: (item: Item, slice: readonly Item[], sliceBytes: number) => boolean,
): Item[][] {
  const slices: Item[][] = [];
  let current: Item[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length > 0 && !joins(item, current, bytes)) {
      slices.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.bytes;
  }
  if (current.length > 0) slices.push(current);
  return slices;
}
