import { builtinToolSpecs } from '../tools/specs/index.js';
import { makeAgentWorkflow } from './agent-workflow.js';

/** The agent job workflow with the built-in tools. */
export const agentJob = makeAgentWorkflow(builtinToolSpecs);
