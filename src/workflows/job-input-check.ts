import { ApplicationFailure } from '@temporalio/workflow';
import type { BeforeToolCallHook, ToolSpec } from '../core/index.js';
import { jobInputProblems } from './job-input-schema.js';
import type { AgentJobInput } from './job-types.js';
import { jobPolicyGate } from './job-policy-gate.js';

/** Error type of a job that cannot run as given; never retried. */
export const BAD_INPUT = 'BadInput';

function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, BAD_INPUT);
}

export interface CheckedJob {
  tools: ToolSpec[];
  beforeToolCall: BeforeToolCallHook;
}

/**
 * Checks a job's input once, at workflow entry, and builds what the run needs from it. Any
 * problem fails the job at once as `BadInput`: a plain Error thrown here would fail the workflow
 * task instead, and retry it forever.
 */
export function checkJobInput(
  input: AgentJobInput,
  toolSpecs: Readonly<Record<string, ToolSpec>>,
): CheckedJob {
  const problems = jobInputProblems(input);
  if (problems.length > 0) throw badInput(`Bad job input: ${problems.join('; ')}`);
  const tools = input.tools.map((name) => {
    const spec = Object.hasOwn(toolSpecs, name) ? toolSpecs[name] : undefined;
    if (!spec) throw badInput(`Tool ${name} is not known to this workflow`);
    return spec;
  });
  return { tools, beforeToolCall: jobPolicyGate(input) };
}
