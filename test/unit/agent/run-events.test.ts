/**
 * How a durable agent reads a run from the job store's event stream: Pi's events, in order,
 * each once, up to the run's `agent_end`, across failed reads (a reconnect goes on from the last
 * event handed on); the job's own `compaction` events are left out; a job that closes without
 * the run's end is reported as such.
 */
import type { AgentJob } from '../../../src/client/job-client.js';
import { readRun } from '../../../src/agent/run-events.js';
import type { AgentEvent } from '../../../src/core/index.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

const user = { role: 'user' as const, content: 'hi', timestamp: 1 };

function stream(): SequencedEvent[] {
  const events = [
    { type: 'agent_start' },
    { type: 'turn_start' },
    { type: 'message_start', message: user },
    { type: 'message_end', message: user },
    {
      type: 'compaction',
      summarised: { start: 0, end: 1 },
      tokensBefore: 10,
      tokensAfter: 5,
      contextWindow: 100,
      summaryRef: 'sha256:x',
    },
    { type: 'agent_end', messages: [user] },
    // The next run's: not this run's to read.
    { type: 'agent_start' },
  ];
  return events.map((event, index) => ({ ...event, seq: index + 1 }) as SequencedEvent);
}

/** A job whose store answers pages of `pageSize`, failing the reads whose number is in `failing`. */
function storedJob(
  events: SequencedEvent[],
  options: { pageSize: number; failing: number[]; closed?: boolean },
) {
  const reads: number[] = [];
  const job = {
    events: async (afterSeq: number) => {
      reads.push(afterSeq);
      if (options.failing.includes(reads.length)) throw new Error('store unreachable');
      return events.filter((event) => event.seq > afterSeq).slice(0, options.pageSize);
    },
    handle: {
      describe: async () => ({ status: { name: options.closed ? 'TERMINATED' : 'RUNNING' } }),
    },
  };
  return { job: job as unknown as AgentJob, reads };
}

test("a run's events are handed on in order, each once, through failed reads, without the job's compaction events", async () => {
  const { job, reads } = storedJob(stream(), { pageSize: 2, failing: [2, 3] });
  const seen: AgentEvent[] = [];
  const reading = await readRun(job, 0, async (event) => void seen.push(event), { pollMs: 1 });
  expect(seen.map((event) => event.type)).toEqual([
    'agent_start',
    'turn_start',
    'message_start',
    'message_end',
    'agent_end',
  ]);
  expect(seen.some((event) => 'seq' in event)).toBe(false);
  expect(reading).toEqual({ lastSeq: 6, started: true, ended: true, lastLiveSeq: 0 });
  // The failed reads were tried again from the last event handed on.
  expect(reads).toEqual([0, 2, 2, 2, 4]);
});

test('reading goes on after the given seq, and a job that closed without the run ending says so', async () => {
  const events = stream().slice(0, 4);
  const { job } = storedJob(events, { pageSize: 10, failing: [], closed: true });
  const seen: string[] = [];
  const reading = await readRun(job, 2, async (event) => void seen.push(event.type), {
    pollMs: 1,
    closedCheckMs: 0,
  });
  expect(seen).toEqual(['message_start', 'message_end']);
  expect(reading).toEqual({ lastSeq: 4, started: false, ended: false, lastLiveSeq: 0 });
});

test('after too many failed reads in a row, the failure is thrown', async () => {
  const { job } = storedJob(stream(), { pageSize: 10, failing: [1, 2, 3] });
  await expect(
    readRun(job, 0, async () => undefined, { pollMs: 1, maxFailedReads: 3 }),
  ).rejects.toThrow('store unreachable');
});
