import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../core/index.js';
import { fileToolActivityOptions } from './file-tool-activity.js';

/** Lines returned when the call sets no `limit`. */
export const DEFAULT_READ_LIMIT = 2000;

export const readToolSpec = {
  name: 'read',
  label: 'Read file',
  description:
    'Reads a text file from the workspace and returns its lines numbered from 1 (number, tab, ' +
    `line). Returns at most ${DEFAULT_READ_LIMIT} lines unless \`limit\` says otherwise; when ` +
    'the output is cut, a note at the end gives the `offset` to read on from.',
  parameters: Type.Object(
    {
      path: Type.String({ description: 'File path, relative to the workspace or absolute.' }),
      offset: Type.Optional(
        Type.Integer({ minimum: 1, description: 'First line to return, 1-based. Default 1.' }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: `Number of lines to return. Default ${DEFAULT_READ_LIMIT}.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  // Reading twice changes nothing.
  replay: 'safe',
  activity: fileToolActivityOptions,
} satisfies ToolSpec;
