import type { ToolSpec } from '../../../src/core/index.js';
import { builtinToolSpecs } from '../../../src/tools/specs/index.js';
import { makeAgentWorkflow } from '../../../src/workflows/agent-workflow.js';

/**
 * A deliberately changed workflow: `bash` declared sequential. A batch recorded in parallel
 * now schedules its bodies one at a time, which must fail replay (R23).
 */
const sequentialBash: ToolSpec = { ...builtinToolSpecs.bash, executionMode: 'sequential' };
export const agentJob = makeAgentWorkflow({ ...builtinToolSpecs, bash: sequentialBash });
