import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExecutionResult, ToolResultContent } from '../../core/index.js';

/** What an MCP tool answered, as one line of text per content block (images and the like as notes). */
function textOfBlock(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      // Kept out of the job's history: a base64 payload is large and most models get text here.
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown]`;
    case 'resource_link':
      return `[resource ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const { resource } = block;
      return 'text' in resource && typeof resource.text === 'string'
        ? resource.text
        : `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, not shown]`;
    }
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** An MCP tool's answer whose `isError` is set (R16): its text is the error the model sees. */
export class McpToolError extends Error {
  override name = 'McpToolError';
}

/**
 * Maps an MCP `tools/call` result to this runner's tool result: text blocks as they are, other
 * blocks as short text notes, `structuredContent` as details (and as the text when there is no
 * content). A result with `isError` is thrown as an {@link McpToolError} (R16).
 */
export function toToolExecutionResult(result: CallToolResult): ToolExecutionResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const texts = blocks.map(textOfBlock);
  if (texts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  if (result.isError === true) {
    throw new McpToolError(texts.join('\n') || 'The MCP tool reported an error');
  }
  const content: ToolResultContent[] = texts.map((text) => ({ type: 'text', text }));
  return {
    content,
    ...(result.structuredContent !== undefined ? { details: result.structuredContent } : {}),
  };
}
