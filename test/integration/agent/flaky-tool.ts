import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../../src/core/index.js';

/** A test tool whose first attempt fails with a retryable error (R24). */
export const flakyToolSpec = {
  name: 'flaky',
  label: 'Flaky',
  description: 'Appends a line to a file; the first attempt of each call fails.',
  parameters: Type.Object({ file: Type.String(), line: Type.String() }),
  // Its side effect happens only on the attempt that succeeds, so a retry cannot repeat it.
  replay: 'safe',
  activity: { retry: { initialInterval: '100 milliseconds', maximumAttempts: 3 } },
} satisfies ToolSpec;
