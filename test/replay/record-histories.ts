import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { decideApproval } from '../../src/client/approvals.js';
import { AGENT_WORKFLOW_TYPE, AgentJob } from '../../src/client/job-client.js';
import { defineTool } from '../../src/tools/user/define-tool.js';
import { pendingApprovalsQuery } from '../../src/workflows/definitions.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import { createAgentWorker } from '../../src/worker/agent-worker.js';
import { openTestStore, temporaryFolder, uniqueName } from '../support/agent-harness.js';
import { startDevServer } from '../support/temporal-server.js';
import { startSearchAttributes } from '../../src/workflows/search-attributes.js';
import { jobStoreScenarios, prepareScenarioFolder, type ReplayScenario } from './scenarios.js';

/**
 * Records the job-store replay fixtures from real runs: `npm run record-histories`. Not part of
 * `npm test`; run it after a deliberate, versioned change of the workflow, and commit the
 * result. The first release's fixtures are not recorded again (new jobs take the store path).
 */
const historiesFolder = fileURLToPath(new URL('../fixtures/histories', import.meta.url));

interface ExportedHistory {
  events: {
    eventType: string;
    workflowExecutionContinuedAsNewEventAttributes?: { newExecutionRunId: string };
  }[];
}

/** One run's history in Temporal's JSON form, as the Temporal CLI exports it. */
function exportHistory(address: string, workflowId: string, runId: string): string {
  const binary = findTemporalBinary();
  if (!binary) throw new Error('Recording needs the Temporal CLI: npm run temporal:install');
  return execFileSync(
    binary.path,
    [
      'workflow',
      'show',
      '--address',
      address,
      '--workflow-id',
      workflowId,
      '--run-id',
      runId,
      '--output',
      'json',
    ],
    { encoding: 'utf8' },
  );
}

/** Every run's history, first to last, following continue-as-new. */
function exportRuns(address: string, workflowId: string, firstRunId: string): string[] {
  const runs: string[] = [];
  let runId: string | undefined = firstRunId;
  while (runId !== undefined) {
    const history = exportHistory(address, workflowId, runId);
    runs.push(history);
    const events = (JSON.parse(history) as ExportedHistory).events;
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return runs;
}

async function waitFor(what: string, ready: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

async function waitForToolStart(job: AgentJob): Promise<void> {
  await waitFor('a tool started', async () =>
    (await job.events(0)).some(
      (event) => event.type === 'tool_execution_end' || event.type === 'tool_execution_start',
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
}

/** The user tool of the `userTools` scenarios. */
const shout = defineTool({
  name: 'shout',
  description: 'Says the text in capitals.',
  parameters: Type.Object({ text: Type.String() }),
  execute: async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
});

/** Runs one scenario on a dev server of its own (its dynamic config differs) and saves it. */
async function recordScenario(root: string, scenario: ReplayScenario): Promise<void> {
  const environment = await startDevServer(
    scenario.suggestContinueAsNewAfter === undefined
      ? []
      : [
          '--dynamic-config-value',
          `limit.historyCount.suggestContinueAsNew=${scenario.suggestContinueAsNewAfter}`,
        ],
  );
  const store = await openTestStore();
  const taskQueue = uniqueName('record');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    store,
    ...(scenario.userTools ? { tools: [shout] } : {}),
    workerOptions: { maxCachedWorkflows: 0 },
  });
  await worker.runUntil(async () => {
    const { workspace, model } = prepareScenarioFolder(root, scenario);
    // Started here rather than by startJob: the first run's id is needed to export every run.
    const handle = await environment.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: scenario.name,
      args: [{ ...scenario.input, model, workspace }],
      // As this release's clients start a job (`startJob`, `dar batch`).
      typedSearchAttributes: startSearchAttributes(),
    });
    const job = new AgentJob(handle, store);
    if (scenario.steer) {
      await waitForToolStart(job);
      await job.steer(scenario.steer);
    }
    if (scenario.followUpsWhileFirstToolRuns) {
      await waitForToolStart(job);
      for (const followUp of scenario.followUpsWhileFirstToolRuns) await job.followUp(followUp);
    }
    for (const { toolCallId, decision } of scenario.approvals ?? []) {
      await waitFor(`call ${toolCallId} waits for approval`, async () =>
        (await handle.query(pendingApprovalsQuery)).some((call) => call.toolCallId === toolCallId),
      );
      await decideApproval(environment.client, scenario.name, {
        toolCallId,
        decision,
        by: 'recorder',
      });
    }
    if (scenario.followUp) {
      await waitFor('the job waits', async () => (await job.status()).phase === 'waiting');
      await job.followUp(scenario.followUp);
    }
    if (scenario.cancelAfterToolStart) {
      await waitForToolStart(job);
      await job.cancel();
    }
    await job.handle.result().catch(() => undefined);
    const runs = exportRuns(environment.address, scenario.name, handle.firstExecutionRunId);
    if (scenario.suggestContinueAsNewAfter === undefined) {
      writeFileSync(join(historiesFolder, `${scenario.name}.json`), runs[0] ?? '');
      return;
    }
    if (runs.length < 3) throw new Error(`${scenario.name}: only ${runs.length} runs`);
    runs.forEach((history, index) =>
      writeFileSync(join(historiesFolder, `${scenario.name}-run-${index + 1}.json`), history),
    );
  });
  await environment.teardown();
  await store.close();
}

/**
 * `DAR_RECORD_SCENARIOS=name,name` records only those scenarios: a new scenario is recorded
 * without recording again the histories earlier releases made.
 */
function scenariosToRecord(): ReplayScenario[] {
  const names = process.env.DAR_RECORD_SCENARIOS?.split(',').map((name) => name.trim());
  if (!names) return jobStoreScenarios;
  return jobStoreScenarios.filter((scenario) => names.includes(scenario.name));
}

test('record the job-store histories from real runs', async () => {
  const root = temporaryFolder('dar-record-');
  for (const scenario of scenariosToRecord()) await recordScenario(root, scenario);
}, 300_000);
