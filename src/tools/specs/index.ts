import type { ToolSpec } from '../../core/index.js';
import { bashToolSpec } from './bash.js';
import { editToolSpec } from './edit.js';
import { lsToolSpec } from './ls.js';
import { readToolSpec } from './read.js';
import { writeToolSpec } from './write.js';

export { bashToolSpec, DEFAULT_BASH_TIMEOUT_SECONDS, MAX_BASH_TIMEOUT_SECONDS } from './bash.js';
export { editToolSpec } from './edit.js';
export { liftLegacyEditArguments } from './edit-legacy-arguments.js';
export { lsToolSpec } from './ls.js';
export { readToolSpec, DEFAULT_READ_LIMIT } from './read.js';
export { writeToolSpec } from './write.js';

/** The built-in tools' workflow-safe halves, by name. */
export const builtinToolSpecs = {
  read: readToolSpec,
  write: writeToolSpec,
  edit: editToolSpec,
  ls: lsToolSpec,
  bash: bashToolSpec,
} as const;

export type BuiltinToolName = keyof typeof builtinToolSpecs;

/** The same specs as a list, in a stable order (the order the model sees them in). */
export const builtinToolSpecList: readonly ToolSpec[] = Object.values(builtinToolSpecs);
