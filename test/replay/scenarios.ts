import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedAnswer } from '../../src/providers/model-script.js';
import type { AgentJobInput } from '../../src/workflows/job-types.js';
import { text, toolCall } from '../support/agent-harness.js';

/** A recorded run: what was started, and what was done to it while it ran. */
export interface ReplayScenario {
  name: string;
  answers: ScriptedAnswer[];
  input: Omit<AgentJobInput, 'model' | 'workspace'>;
  /** Sent once the first tool has started. */
  steer?: string;
  cancelAfterToolStart?: boolean;
}

export const scenarios: ReplayScenario[] = [
  {
    name: 'parallel-batch-with-policy-and-truncation',
    input: { prompt: 'tidy up', tools: ['read', 'write', 'edit', 'ls', 'bash'] },
    answers: [
      {
        stopReason: 'toolUse',
        content: [
          toolCall('a', 'bash', { command: 'sleep 0.5; echo slow' }),
          toolCall('b', 'bash', { command: 'echo fast' }),
          toolCall('c', 'read', { path: '../outside.txt' }),
          toolCall('d', 'nope', {}),
          toolCall('e', 'write', { path: 'notes.txt', content: 'one\ntwo\n' }),
        ],
      },
      { stopReason: 'length', content: [toolCall('f', 'ls', {})] },
      {
        stopReason: 'toolUse',
        content: [toolCall('g', 'edit', { path: 'notes.txt', oldText: 'two', newText: '2' })],
      },
      { stopReason: 'stop', content: [text('tidy')] },
    ],
  },
  {
    name: 'steered',
    input: { prompt: 'wait a bit', tools: ['bash'] },
    steer: 'and then stop',
    answers: [
      { stopReason: 'toolUse', content: [toolCall('s', 'bash', { command: 'sleep 1' })] },
      { stopReason: 'stop', content: [text('stopped')] },
    ],
  },
  {
    name: 'cancelled-during-parallel-tools',
    input: { prompt: 'long work', tools: ['bash'] },
    cancelAfterToolStart: true,
    answers: [
      {
        stopReason: 'toolUse',
        content: [
          toolCall('x', 'bash', { command: 'sleep 30' }),
          toolCall('y', 'bash', { command: 'sleep 30' }),
        ],
      },
      { stopReason: 'stop', content: [text('never')] },
    ],
  },
];

export function prepareScenarioFolder(root: string, scenario: ReplayScenario) {
  const folder = join(root, scenario.name);
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(folder, 'outside.txt'), 'not for the agent');
  const script = join(folder, 'script.json');
  writeFileSync(script, JSON.stringify(scenario.answers));
  return { workspace, model: `scripted:${script}` };
}
