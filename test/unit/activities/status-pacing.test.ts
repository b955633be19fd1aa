import { jest } from '@jest/globals';
import { StatusPacing } from '../../../src/activities/status-pacing.js';
import { emptyUsage } from '../../../src/core/index.js';
import type { JobStatus } from '../../../src/workflows/job-types.js';

/** The stored status of a job's quick writes: at once for a new phase, else at most 1 s late. */

const usage = emptyUsage();

function status(phase: JobStatus['phase'], turns: number): JobStatus {
  return {
    phase,
    turns,
    modelCalls: turns,
    lastSeq: turns * 10,
    cancelled: false,
    usage,
    continuedAsNew: 0,
  };
}

function write(jobId: string, phase: JobStatus['phase'], turns: number) {
  return { jobId, events: [{ seq: turns * 10, event: { turns } }], status: status(phase, turns) };
}

let now = 0;
let later: ReturnType<typeof write>[] = [];
const pacing = () => new StatusPacing(1000, () => now);

beforeEach(() => {
  jest.useFakeTimers();
  now = 0;
  later = [];
});
afterEach(() => jest.useRealTimers());

function advance(milliseconds: number) {
  now += milliseconds;
  jest.advanceTimersByTime(milliseconds);
}

test('the first status is written at once; the next one within the interval is held, then written', () => {
  const statuses = pacing();
  expect(statuses.pace(write('a', 'model', 1), (held) => later.push(held))).toHaveProperty(
    'status',
  );
  advance(300);
  const paced = statuses.pace(write('a', 'model', 2), (held) => later.push(held));
  // The events go at once, without the status.
  expect(paced.events).toHaveLength(1);
  expect(paced).not.toHaveProperty('status');
  advance(600);
  expect(later).toEqual([]);
  advance(100);
  expect(later).toEqual([{ ...write('a', 'model', 2), events: [] }]);
});

test('of several held statuses only the newest is written', () => {
  const statuses = pacing();
  statuses.pace(write('a', 'model', 1), (held) => later.push(held));
  for (const turns of [2, 3, 4]) {
    advance(100);
    statuses.pace(write('a', 'model', turns), (held) => later.push(held));
  }
  advance(1000);
  expect(later.map((held) => held.status.turns)).toEqual([4]);
});

test('a turn flipping between model and tools is paced; a new phase is written at once', () => {
  const statuses = pacing();
  statuses.pace(write('a', 'model', 1), (held) => later.push(held));
  advance(100);
  expect(statuses.pace(write('a', 'tools', 2), (held) => later.push(held))).not.toHaveProperty(
    'status',
  );
  advance(100);
  expect(statuses.pace(write('a', 'waiting', 2), (held) => later.push(held))).toHaveProperty(
    'status.phase',
    'waiting',
  );
  advance(2000);
  expect(later).toEqual([]);
});

test('a durable write with a status drops the held one; jobs are paced apart', () => {
  const statuses = pacing();
  statuses.pace(write('a', 'model', 1), (held) => later.push(held));
  statuses.pace(write('b', 'model', 1), (held) => later.push(held));
  advance(100);
  statuses.pace(write('a', 'model', 2), (held) => later.push(held));
  statuses.pace(write('b', 'model', 2), (held) => later.push(held));
  statuses.written('a', status('model', 3));
  advance(2000);
  expect(later.map((held) => [held.jobId, held.status.turns])).toEqual([['b', 2]]);
});

test('once the interval has passed, a status is written at once again', () => {
  const statuses = pacing();
  statuses.pace(write('a', 'model', 1), (held) => later.push(held));
  advance(1000);
  expect(statuses.pace(write('a', 'model', 2), (held) => later.push(held))).toHaveProperty(
    'status.turns',
    2,
  );
});
