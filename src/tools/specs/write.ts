import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../core/index.js';
import { fileToolActivityOptions } from './file-tool-activity.js';

export const writeToolSpec = {
  name: 'write',
  label: 'Write file',
  description:
    'Writes `content` to a file in the workspace, replacing the file if it exists and creating ' +
    'missing parent folders. Use `edit` to change part of an existing file.',
  parameters: Type.Object(
    {
      path: Type.String({ description: 'File path, relative to the workspace or absolute.' }),
      content: Type.String({ description: 'The complete new content of the file.' }),
    },
    { additionalProperties: false },
  ),
  // The body journals its change and writes atomically: a second run returns the first result.
  replay: 'safe',
  activity: fileToolActivityOptions,
} satisfies ToolSpec;
