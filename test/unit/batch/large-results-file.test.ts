import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TaskProgress } from '../../../src/batch/batch-runner.js';
import { nextRewriteDelay, writeResults } from '../../../src/batch/results-file.js';
import { emptyUsage } from '../../../src/core/index.js';

/**
 * A large batch's results file: 70,000 answers of 8 KB are more text than one JavaScript string
 * may hold, so the file is written a chunk at a time. A real file on disk.
 */
const folder = mkdtempSync(join(tmpdir(), 'dar-large-results-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('70,000 finished tasks of 8 KB answers are written whole, one line each, in order', async () => {
  const answer = 'a'.repeat(8 * 1024);
  const tasks: TaskProgress[] = Array.from({ length: 70_000 }, (_, index) => ({
    task: {
      id: `t${index}`,
      line: index + 1,
      input: { prompt: 'p', model: 'scripted:x', workspace: '/w', tools: [] },
    },
    workflowId: `batch-b-t${index}`,
    state: 'completed',
    origin: 'started',
    attempt: 1,
    earlier: [],
    outcome: { status: 'completed', text: answer, usage: emptyUsage(), turns: 1 },
  }));
  const path = join(folder, 'results.jsonl');
  expect(writeResults(path, tasks)).toBe(70_000);
  // Over V8's longest string (2^29 - 24 characters): it could not have been one string.
  expect(statSync(path).size).toBeGreaterThan(2 ** 29);
  let count = 0;
  let last = '';
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (count === 0) expect(JSON.parse(line)).toMatchObject({ id: 't0', text: answer });
    count += 1;
    last = line;
  }
  expect(count).toBe(70_000);
  expect(JSON.parse(last)).toMatchObject({ id: 't69999', status: 'completed' });
}, 120_000);

test('a slow rewrite spaces the next ones out: at most a fifth of the time is spent rewriting', () => {
  expect(nextRewriteDelay(1000, 0)).toBe(1000);
  expect(nextRewriteDelay(1000, 200)).toBe(1000);
  expect(nextRewriteDelay(1000, 1100)).toBe(4400);
});
