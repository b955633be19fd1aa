import { MAXIMUM_EVENTS_PAGE_LENGTH, jsonLength } from '../core/index.js';

/**
 * `items` from index `start` on, at most `limit` of them, and no more once the page passes
 * `maximumLength` characters of JSON: a query answer must stay under gRPC's 4 MB message limit.
 * Always at least one item when there is one, so that a reader paging through always advances.
 */
export function boundedPage<T>(
  items: readonly T[],
  start: number,
  limit: number,
  maximumLength = MAXIMUM_EVENTS_PAGE_LENGTH,
): T[] {
  const page: T[] = [];
  let length = 0;
  for (let index = Math.max(0, start); index < items.length && page.length < limit; index += 1) {
    const item = items[index] as T;
    length += jsonLength(item);
    if (page.length > 0 && length > maximumLength) break;
    page.push(item);
  }
  return page;
}
