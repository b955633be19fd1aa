import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../core/index.js';
import { liftLegacyEditArguments } from './edit-legacy-arguments.js';
import { fileToolActivityOptions } from './file-tool-activity.js';

export const editToolSpec = {
  name: 'edit',
  label: 'Edit file',
  description:
    'Replaces exact text in a workspace file. Each `oldText` must occur exactly once in the ' +
    'file as it stands after the edits before it (include enough surrounding lines to make it ' +
    'unique). Edits apply in order; if any fails, the file is left unchanged.',
  parameters: Type.Object(
    {
      path: Type.String({ description: 'File path, relative to the workspace or absolute.' }),
      edits: Type.Array(
        Type.Object(
          {
            oldText: Type.String({
              minLength: 1,
              description: 'Exact text to replace, including whitespace.',
            }),
            newText: Type.String({ description: 'The replacement text.' }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: false },
  ),
  prepareArguments: liftLegacyEditArguments,
  // The body journals its change and writes atomically: a second run returns the first result.
  replay: 'safe',
  activity: fileToolActivityOptions,
} satisfies ToolSpec;
