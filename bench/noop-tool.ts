import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../src/core/index.js';

/** A tool whose body does nothing: what remains is the runner's own cost. */
export const noopToolSpec = {
  name: 'noop',
  label: 'No-op',
  description: 'Does nothing.',
  parameters: Type.Object({ index: Type.Integer() }),
} satisfies ToolSpec;
