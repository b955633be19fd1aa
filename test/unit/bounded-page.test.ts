import { boundedPage } from '../../src/workflows/bounded-page.js';
import { EventLog } from '../../src/workflows/legacy/event-log.js';

describe('bounded query pages', () => {
  test('a page stops once it passes the size limit, and holds at least one item', () => {
    const items = ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(100)];
    expect(boundedPage(items, 0, 10, 250)).toEqual(items.slice(0, 2));
    expect(boundedPage(items, 0, 10, 10)).toEqual(items.slice(0, 1));
    expect(boundedPage(items, 2, 10, 10)).toEqual(items.slice(2));
    expect(boundedPage(items, 3, 10, 10)).toEqual([]);
  });

  test('the events query answers pages of ~1 MiB: a reader reads on until an empty page', () => {
    const log = new EventLog();
    const big = 'x'.repeat(300 * 1024);
    for (let index = 0; index < 10; index += 1) {
      log.append({ type: 'message_end', message: { role: 'user', content: big, timestamp: 1 } });
    }
    const pages: number[] = [];
    let afterSeq = 0;
    for (;;) {
      const page = log.after(afterSeq);
      if (page.length === 0) break;
      expect(JSON.stringify(page).length).toBeLessThan(1.5 * 1024 * 1024);
      pages.push(page.length);
      afterSeq = page.at(-1)?.seq ?? afterSeq;
    }
    expect(pages).toEqual([3, 3, 3, 1]);
  });
});
