import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../../src/core/index.js';

/** A tool whose schema needs coercion: the canned model sends `times` as a string. */
export const echoToolSpec = {
  name: 'echo',
  label: 'Echo',
  description: 'Repeats a text a number of times.',
  parameters: Type.Object({
    text: Type.String(),
    times: Type.Integer({ minimum: 1, maximum: 10 }),
    loud: Type.Optional(Type.Boolean()),
  }),
} satisfies ToolSpec;
