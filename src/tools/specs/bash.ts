import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../core/index.js';

export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;
export const MAX_BASH_TIMEOUT_SECONDS = 3600;

export const bashToolSpec = {
  name: 'bash',
  label: 'Run shell command',
  description:
    'Runs a command with `bash -c` in the workspace folder and returns its combined stdout and ' +
    'stderr (the last 50000 characters when longer). A non-zero exit code is reported as an ' +
    `error with the output. Times out after \`timeout\` seconds (default ` +
    `${DEFAULT_BASH_TIMEOUT_SECONDS}, at most ${MAX_BASH_TIMEOUT_SECONDS}).`,
  parameters: Type.Object(
    {
      command: Type.String({ minLength: 1, description: 'The bash command line to run.' }),
      timeout: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: MAX_BASH_TIMEOUT_SECONDS,
          description: `Seconds before the command is killed. Default ${DEFAULT_BASH_TIMEOUT_SECONDS}.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  // A shell command may have side effects half done: never run it again blindly.
  replay: 'unsafe',
  activity: {
    // Covers the longest allowed command plus the time to kill it.
    startToCloseTimeout: `${MAX_BASH_TIMEOUT_SECONDS + 60}s`,
    heartbeatTimeout: '10s',
  },
} satisfies ToolSpec;
