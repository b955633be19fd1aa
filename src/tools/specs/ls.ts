import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../core/index.js';
import { fileToolActivityOptions } from './file-tool-activity.js';

export const lsToolSpec = {
  name: 'ls',
  label: 'List folder',
  description:
    'Lists the entries of a folder in the workspace, sorted by name, one per line; folders ' +
    'end with `/`. Without `path`, lists the workspace root.',
  parameters: Type.Object(
    {
      path: Type.Optional(
        Type.String({ description: 'Folder path, relative to the workspace or absolute.' }),
      ),
    },
    { additionalProperties: false },
  ),
  // Listing twice changes nothing.
  replay: 'safe',
  activity: fileToolActivityOptions,
} satisfies ToolSpec;
