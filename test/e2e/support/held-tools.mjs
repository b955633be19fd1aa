// Tools for `dar worker --tools` in the worker-kill test: a Pi AgentTool as Pi users write it
// (unsafe by default) and a defineTool tool declared replay-safe. Each logs its start to
// `calls.log` in the workspace, then waits for a `release` file there (or its abort signal).
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { Type } from 'typebox';
import { defineTool } from 'durable-agent-runner';

function holdUntilReleased(workspace, signal) {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (!existsSync(join(workspace, 'release'))) return;
      clearInterval(timer);
      resolve();
    }, 100);
    signal?.addEventListener('abort', () => {
      clearInterval(timer);
      reject(new Error('aborted'));
    });
  });
}

/** Pi's AgentTool shape; `execute(toolCallId, params, signal, onUpdate)`. */
export const holdPi = {
  name: 'hold_pi',
  label: 'Hold (Pi)',
  description: 'Logs its start, then waits to be released.',
  parameters: Type.Object({ workspace: Type.String() }),
  async execute(toolCallId, params, signal, onUpdate) {
    appendFileSync(join(params.workspace, 'calls.log'), `start ${toolCallId}\n`);
    onUpdate?.({ content: [{ type: 'text', text: 'holding' }], details: {} });
    await holdUntilReleased(params.workspace, signal);
    return { content: [{ type: 'text', text: 'released (pi)' }], details: {} };
  },
};

export const holdSafe = defineTool({
  name: 'hold_safe',
  description: 'Logs its start, then waits to be released. Harmless to run again.',
  parameters: Type.Object({}),
  replay: 'safe',
  activity: { heartbeatTimeout: '3s', retry: { initialInterval: '500ms', maximumAttempts: 3 } },
  async execute(_args, context) {
    appendFileSync(join(context.workspace, 'calls.log'), `start ${context.toolCallId}\n`);
    await holdUntilReleased(context.workspace, context.signal);
    return { content: [{ type: 'text', text: 'released (safe)' }] };
  },
});
