import { builtinToolSpecs } from '../../../src/tools/specs/index.js';
import { makeAgentWorkflow } from '../../../src/workflows/agent-workflow.js';
import { flakyToolSpec } from './flaky-tool.js';

/** The production workflow with one extra test tool; same type name as in production. */
export const agentJob = makeAgentWorkflow({ ...builtinToolSpecs, flaky: flakyToolSpec });
