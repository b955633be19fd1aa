import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob, type AgentJob } from '../../src/client/job-client.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import { createAgentWorker } from '../../src/worker/agent-worker.js';
import { temporaryFolder, uniqueName } from '../support/agent-harness.js';
import { startDevServer } from '../support/temporal-server.js';
import { prepareScenarioFolder, scenarios } from './scenarios.js';

/**
 * Records the replay fixtures from real runs: `npm run record-histories`. Not part of
 * `npm test`; run it after a deliberate, versioned change of the workflow, and commit the result.
 */
const historiesFolder = fileURLToPath(new URL('../fixtures/histories', import.meta.url));

/** The history in Temporal's JSON form, as the Temporal CLI exports it. */
function exportHistory(address: string, workflowId: string): string {
  const binary = findTemporalBinary();
  if (!binary) throw new Error('Recording needs the Temporal CLI: npm run temporal:install');
  return execFileSync(
    binary.path,
    ['workflow', 'show', '--address', address, '--workflow-id', workflowId, '--output', 'json'],
    { encoding: 'utf8' },
  );
}

async function waitForToolStart(job: AgentJob): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const events = await job.events(0);
    if (
      events.some(
        (event) => event.type === 'tool_execution_end' || event.type === 'tool_execution_start',
      )
    ) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no tool started');
}

test('record histories from real runs', async () => {
  const environment: TestWorkflowEnvironment = await startDevServer();
  const taskQueue = uniqueName('record');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workerOptions: { maxCachedWorkflows: 0 },
  });
  const root = temporaryFolder('dar-record-');
  await worker.runUntil(async () => {
    for (const scenario of scenarios) {
      const { workspace, model } = prepareScenarioFolder(root, scenario);
      const job = await startJob(
        environment.client,
        { ...scenario.input, model, workspace },
        { taskQueue, workflowId: scenario.name },
      );
      if (scenario.steer) {
        await waitForToolStart(job);
        await job.steer(scenario.steer);
      }
      if (scenario.cancelAfterToolStart) {
        await waitForToolStart(job);
        await job.cancel();
      }
      await job.handle.result().catch(() => undefined);
      writeFileSync(
        join(historiesFolder, `${scenario.name}.json`),
        exportHistory(environment.address, scenario.name),
      );
    }
  });
  await environment.teardown();
});
