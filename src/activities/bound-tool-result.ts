import {
  MAXIMUM_TOOL_DETAILS_LENGTH,
  MAXIMUM_TOOL_OUTPUT_BYTES,
  type ToolExecutionResult,
  type ToolResultContent,
} from '../core/index.js';
import { utf8Length, utf8Prefix } from '../tools/utf8-prefix.js';

/**
 * Base64 characters of one image block. An image over this is replaced by a note: one result
 * must fit Temporal's 2 MB payload limit with the transcript events that repeat it.
 */
export const MAXIMUM_IMAGE_DATA_LENGTH = 512 * 1024;

/**
 * A tool's result as it may enter history and the store, whatever tool produced it (built-in or
 * user): text content cut to `MAXIMUM_TOOL_OUTPUT_BYTES` in all (with a note saying how many
 * bytes were dropped), oversized images and `details` replaced by notes. The safety net behind
 * tools that bound their own output (read, bash) with notes of their own.
 *
 * It is also plain JSON, as JSON would carry it: a `Date` becomes its ISO text, `NaN` and an
 * `undefined` array item `null`, a class instance its own fields. The body has already run by
 * now, and may not be safe to run again: nothing after it may fail on the result's shape (the
 * store refuses what is not plain JSON, and a failed call invites the model to call again).
 * What JSON cannot write at all (a cycle, a bigint) is replaced by a note.
 */
export function boundToolResult(result: ToolExecutionResult): ToolExecutionResult {
  const bounded: ToolExecutionResult = {
    ...result,
    content: plainContent(boundContent(result.content)),
  };
  if (result.details !== undefined) bounded.details = plainDetails(result.details);
  if (result.usage !== undefined) {
    const usage = throughJson(result.usage);
    if (usage === undefined || usage.value === undefined) delete bounded.usage;
    else bounded.usage = usage.value as ToolExecutionResult['usage'];
  }
  return bounded;
}

/** `value` written as JSON and read back, or undefined when JSON cannot write it. */
function throughJson(value: unknown): { value: unknown; length: number } | undefined {
  try {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined
      ? { value: undefined, length: 0 }
      : { value: JSON.parse(text), length: text.length };
  } catch {
    return undefined;
  }
}

function plainDetails(details: unknown): unknown {
  const plain = throughJson(details);
  if (plain === undefined) {
    return {
      omitted: "The tool's details were dropped: JSON cannot write them (a cycle or a bigint).",
    };
  }
  if (plain.length > MAXIMUM_TOOL_DETAILS_LENGTH) {
    return {
      omitted:
        `The tool's details were dropped: ${plain.length} characters of JSON, over the ` +
        `limit of ${MAXIMUM_TOOL_DETAILS_LENGTH}.`,
    };
  }
  return plain.value ?? null;
}

function plainContent(content: ToolResultContent[]): ToolResultContent[] {
  // A body that breaks its contract (no array) is not this function's to fix: keep it.
  if (!Array.isArray(content)) return content;
  const plain = throughJson(content);
  if (plain !== undefined) return plain.value as ToolResultContent[];
  return [
    {
      type: 'text',
      text: "[The tool's output was dropped: JSON cannot write it (a cycle or a bigint).]",
    },
  ];
}

function boundContent(content: ToolResultContent[]): ToolResultContent[] {
  // A body that breaks its contract (no array) is not this function's to fix: keep it.
  if (!Array.isArray(content)) return content;
  let budget = MAXIMUM_TOOL_OUTPUT_BYTES;
  let droppedBytes = 0;
  let totalBytes = 0;
  const kept: ToolResultContent[] = [];
  for (const block of content) {
    if (block?.type === 'image') {
      if (typeof block.data === 'string' && block.data.length > MAXIMUM_IMAGE_DATA_LENGTH) {
        kept.push({
          type: 'text',
          text:
            `[Image dropped: ${block.data.length} characters of base64, over the limit of ` +
            `${MAXIMUM_IMAGE_DATA_LENGTH}]`,
        });
      } else {
        kept.push(block);
      }
      continue;
    }
    if (block?.type !== 'text' || typeof block.text !== 'string') {
      kept.push(block);
      continue;
    }
    const bytes = utf8Length(block.text);
    totalBytes += bytes;
    if (bytes <= budget) {
      kept.push(block);
      budget -= bytes;
      continue;
    }
    const prefix = utf8Prefix(block.text, budget);
    droppedBytes += bytes - utf8Length(prefix);
    budget = 0;
    if (prefix !== '') kept.push({ ...block, text: prefix });
  }
  if (droppedBytes > 0) {
    kept.push({
      type: 'text',
      text:
        `\n[Output cut: ${droppedBytes} of ${totalBytes} bytes dropped; a tool result holds at ` +
        `most ${MAXIMUM_TOOL_OUTPUT_BYTES} bytes of text.]`,
    });
  }
  return kept;
}
