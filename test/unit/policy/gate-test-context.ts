import type { BeforeToolCallContext, ToolSpec } from '../../../src/core/index.js';
import { builtinToolSpecs } from '../../../src/tools/specs/index.js';

/** The context the preflight hands to `beforeToolCall` for one call of a built-in tool. */
export function callOf(toolName: string, args: Record<string, unknown>): BeforeToolCallContext {
  const tool: ToolSpec =
    (builtinToolSpecs as Record<string, ToolSpec>)[toolName] ??
    ({ name: toolName, label: toolName, description: '', parameters: {} } as ToolSpec);
  const toolCall = { type: 'toolCall' as const, id: 'call-1', name: toolName, arguments: args };
  return {
    assistantMessage: {
      role: 'assistant',
      content: [toolCall],
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'toolUse',
      timestamp: 0,
    },
    toolCall,
    args: Object.freeze({ ...args }),
    tool,
    context: { systemPrompt: '', messages: [], tools: [tool] },
  };
}
