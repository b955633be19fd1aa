import type { AgentJob } from '../../../src/client/job-client.js';
import type { AgentJobInput } from '../../../src/workflows/job-types.js';
import {
  jobInput,
  scriptedModel,
  temporaryFolder,
  text,
  toolCall,
} from '../../support/agent-harness.js';

/**
 * Runs a job named `name` to its end with `start`: one bash call whose output only this job has
 * (`<name> output only`) and one write (each leaves a record: the bash call's answer, the
 * write's journal entry), then a final answer (`<name> finished`).
 */
export async function finishedJob(
  name: string,
  start: (input: AgentJobInput) => Promise<AgentJob>,
): Promise<AgentJob> {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall(`${name}-1`, 'bash', { command: `echo ${name} output only` }),
        toolCall(`${name}-2`, 'write', { path: `${name}.txt`, content: `${name} wrote this` }),
      ],
    },
    { stopReason: 'stop', content: [text(`${name} finished`)] },
  ]);
  const job = await start(jobInput({ model, workspace: folder, prompt: name }));
  await job.result();
  return job;
}
