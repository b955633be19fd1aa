import type { Worker } from '@temporalio/worker';
import { AgentWorker } from '../../../src/worker/agent-worker-group.js';

/** The workers of one agent worker run and stop together (no server: stand-in workers). */

class StandInWorker {
  state: 'INITIALIZED' | 'RUNNING' | 'STOPPED' = 'INITIALIZED';
  shutdowns = 0;
  private stop: (() => void) | undefined;
  constructor(
    readonly options: { taskQueue: string },
    private readonly failure?: Error,
  ) {}
  getState() {
    return this.state;
  }
  run(): Promise<void> {
    this.state = 'RUNNING';
    if (this.failure) {
      this.state = 'STOPPED';
      return Promise.reject(this.failure);
    }
    return new Promise((resolve) => {
      this.stop = () => {
        this.state = 'STOPPED';
        resolve();
      };
    });
  }
  shutdown(): void {
    if (this.state !== 'RUNNING') throw new Error('not running');
    this.shutdowns += 1;
    this.stop?.();
  }
}

const asWorker = (worker: StandInWorker) => worker as unknown as Worker;

test('runUntil runs every worker during the work, stops them all after, returns its result', async () => {
  const workers = [
    new StandInWorker({ taskQueue: 'jobs' }),
    new StandInWorker({ taskQueue: 'jobs-model-openai' }),
  ];
  const group = new AgentWorker(asWorker(workers[0]!), [asWorker(workers[1]!)]);
  expect(group.taskQueues).toEqual(['jobs', 'jobs-model-openai']);
  const result = await group.runUntil(async () => {
    expect(workers.map((worker) => worker.state)).toEqual(['RUNNING', 'RUNNING']);
    return 42;
  });
  expect(result).toBe(42);
  expect(workers.map((worker) => [worker.state, worker.shutdowns])).toEqual([
    ['STOPPED', 1],
    ['STOPPED', 1],
  ]);
  // A second shutdown is harmless.
  group.shutdown();
});

test('when one worker fails, the others are shut down and its error is thrown', async () => {
  const healthy = new StandInWorker({ taskQueue: 'jobs' });
  const broken = new StandInWorker({ taskQueue: 'jobs-model-openai' }, new Error('poller died'));
  const group = new AgentWorker(asWorker(healthy), [asWorker(broken)]);
  await expect(group.run()).rejects.toThrow('poller died');
  expect(healthy.state).toBe('STOPPED');
  await expect(
    new AgentWorker(asWorker(new StandInWorker({ taskQueue: 'a' })), [
      asWorker(new StandInWorker({ taskQueue: 'b' }, new Error('gone'))),
    ]).runUntil(() => new Promise(() => undefined)),
  ).rejects.toThrow('gone');
});
