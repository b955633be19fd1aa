import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../../src/core/index.js';

/** Small tool specs for the core tests: schemas only, bodies live in the harness. */
function spec(name: string, parameters: ToolSpec['parameters'], extra: Partial<ToolSpec> = {}) {
  return { name, label: name, description: `test tool ${name}`, parameters, ...extra } as ToolSpec;
}

export const readTool = spec('read', Type.Object({ path: Type.String() }));

const editSchema = Type.Object({
  path: Type.String(),
  edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }), {
    minItems: 1,
  }),
});

/** Lifts the legacy shape `{ path, oldText, newText }` into `{ path, edits: [...] }` (R7). */
export function liftLegacyEdit(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const record = raw as Record<string, unknown>;
  if ('edits' in record || !('oldText' in record)) return raw;
  const { oldText, newText, ...rest } = record;
  return { ...rest, edits: [{ oldText, newText }] };
}

export const editTool = spec('edit', editSchema, { prepareArguments: liftLegacyEdit });

export const settingsTool = spec(
  'settings',
  Type.Object({
    count: Type.Integer(),
    ratio: Type.Number(),
    enabled: Type.Boolean(),
    label: Type.String(),
  }),
);

/** Declares `executionMode: "sequential"`: any batch calling it runs one call at a time (R13). */
export const lockedTool = spec('locked', Type.Object({ name: Type.String() }), {
  executionMode: 'sequential',
});

export const anyTool = spec('any', Type.Object({}, { additionalProperties: true }));
