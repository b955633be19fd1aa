import {
  MAXIMUM_TOOL_DETAILS_LENGTH,
  MAXIMUM_TOOL_OUTPUT_BYTES,
  jsonLength,
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
 * A tool's result as it may enter history, whatever tool produced it (built-in or user): text
 * content cut to `MAXIMUM_TOOL_OUTPUT_BYTES` in all (with a note saying how many bytes were
 * dropped), oversized images and `details` replaced by notes. The safety net behind tools that
 * bound their own output (read, bash) with notes of their own.
 */
export function boundToolResult(result: ToolExecutionResult): ToolExecutionResult {
  const bounded: ToolExecutionResult = { ...result, content: boundContent(result.content) };
  const detailsLength = jsonLength(result.details);
  if (detailsLength > MAXIMUM_TOOL_DETAILS_LENGTH) {
    bounded.details = {
      omitted:
        `The tool's details were dropped: ${describeLength(detailsLength)} of JSON, over the ` +
        `limit of ${MAXIMUM_TOOL_DETAILS_LENGTH}.`,
    };
  }
  return bounded;
}

function describeLength(length: number): string {
  return Number.isFinite(length) ? `${length} characters` : 'too large to measure';
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
