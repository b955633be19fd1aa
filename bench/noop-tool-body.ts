import type { ToolImplementation } from '../src/tools/tool-implementation.js';
import { noopToolSpec } from './noop-tool.js';

export const noopTool: ToolImplementation<typeof noopToolSpec> = {
  spec: noopToolSpec,
  async execute(args) {
    return { content: [{ type: 'text', text: `ok ${args.index}` }] };
  },
};
