import { OPERATION_ABORTED } from '../core/index.js';
import { throwIfAborted } from './abort.js';
import { outputLines } from './output-lines.js';
import { runCommand } from './run-command.js';
import { bashToolSpec, DEFAULT_BASH_TIMEOUT_SECONDS } from './specs/bash.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

function withOutput(headline: string, output: string): string {
  return output === '' ? headline : `${headline}\n\n${output}`;
}

export const bashTool: ToolImplementation<typeof bashToolSpec> = {
  spec: bashToolSpec,
  async execute(args, context) {
    throwIfAborted(context.signal);
    const cwd = await resolveWorkspacePath(context.workspace, '.');
    const timeoutSeconds = args.timeout ?? DEFAULT_BASH_TIMEOUT_SECONDS;
    const onUpdate = context.onUpdate;
    // Output lines go to followers as they come (the result still holds the whole output).
    const lines = onUpdate
      ? outputLines((text) => onUpdate({ content: [{ type: 'text', text }] }))
      : undefined;
    const outcome = await runCommand({
      command: args.command,
      cwd,
      timeoutMs: timeoutSeconds * 1000,
      signal: context.signal,
      heartbeat: () => context.heartbeat(),
      ...(lines ? { onOutput: (chunk: string) => lines.push(chunk) } : {}),
    });
    lines?.end();

    // Failures are thrown, with the output, so that the model sees them as errors (R16).
    if (outcome.stoppedBy === 'abort') throw new Error(OPERATION_ABORTED);
    if (outcome.stoppedBy === 'timeout') {
      throw new Error(withOutput(`Command timed out after ${timeoutSeconds} s`, outcome.output));
    }
    if (outcome.exitCode === null) {
      throw new Error(
        withOutput(`Command was killed by signal ${outcome.exitSignal}`, outcome.output),
      );
    }
    if (outcome.exitCode !== 0) {
      throw new Error(withOutput(`Command exited with code ${outcome.exitCode}`, outcome.output));
    }
    return {
      content: [{ type: 'text', text: outcome.output === '' ? '(no output)' : outcome.output }],
      details: { exitCode: 0, outputTruncated: outcome.outputTruncated },
    };
  },
};
