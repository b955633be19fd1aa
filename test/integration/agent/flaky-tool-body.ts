import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetryableToolError } from '../../../src/tools/retryable-tool-error.js';
import type { ToolImplementation } from '../../../src/tools/tool-implementation.js';
import { flakyToolSpec } from './flaky-tool.js';

/** Records every attempt with its idempotency key; fails the first attempt of each key. */
export const flakyTool: ToolImplementation<typeof flakyToolSpec> = {
  spec: flakyToolSpec,
  async execute(args, context) {
    const attemptsFile = join(context.workspace, 'attempts.log');
    appendFileSync(attemptsFile, `${context.idempotencyKey}\n`);
    const attempts = readFileSync(attemptsFile, 'utf8')
      .split('\n')
      .filter((key) => key === context.idempotencyKey).length;
    if (attempts === 1) throw new RetryableToolError('first attempt fails');
    appendFileSync(join(context.workspace, args.file), `${args.line}\n`);
    return { content: [{ type: 'text', text: `wrote after ${attempts} attempts` }] };
  },
};
