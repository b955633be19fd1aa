import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { agentWorkflowsPath } from '../../src/worker/workflow-bundle-path.js';
import { scenarios } from './scenarios.js';

/**
 * R23: histories recorded from real runs (test/fixtures/histories, written by
 * `npm run record-histories`) replay with the current workflow code.
 */
const historiesFolder = fileURLToPath(new URL('../fixtures/histories', import.meta.url));
const changedWorkflowsPath = fileURLToPath(new URL('./changed/workflows.ts', import.meta.url));

const replayScript = fileURLToPath(new URL('./replay-histories.mjs', import.meta.url));

interface ReplayOutcome {
  workflowId: string;
  error: string | null;
}

/** Replays every committed history with `workflowsPath`, in a plain Node process. */
function replayAll(workflowsPath: string): ReplayOutcome[] {
  const output = execFileSync(process.execPath, [replayScript, historiesFolder, workflowsPath], {
    encoding: 'utf8',
  });
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ReplayOutcome);
}

test('R23: every recorded history replays with the current workflow code', async () => {
  const results = replayAll(agentWorkflowsPath());
  expect(results.map((result) => result.workflowId)).toEqual(
    scenarios.map((scenario) => scenario.name).sort(),
  );
  for (const result of results) expect(result.error).toBeNull();
});

test('R23: a deliberately changed workflow (bash made sequential) fails replay', async () => {
  const results = replayAll(changedWorkflowsPath);
  const failed = results.filter((result) => result.error !== null);
  expect(failed.map((result) => result.workflowId)).toContain(
    'parallel-batch-with-policy-and-truncation',
  );
  expect(String(failed[0]?.error)).toMatch(/nondetermin|determinism/i);
});
