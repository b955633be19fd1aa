import { ApplicationFailure } from '@temporalio/workflow';
import {
  MAXIMUM_LISTED_FAILURES,
  quoteBounded,
  type BeforeToolCallHook,
  type ToolSpec,
} from '../core/index.js';
import { jobInputProblems } from './job-input-schema.js';
import type { AgentJobInput } from './job-types.js';
import { jobPolicyGate } from './job-policy-gate.js';

/** Error type of a job that cannot run as given; never retried. */
export const BAD_INPUT = 'BadInput';

function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, BAD_INPUT);
}

/**
 * The first problems, each cut to a quotable length, and how many more there were: an input
 * with a problem per element of a huge array would otherwise make a failure larger than the
 * server accepts, and the job would not even fail cleanly.
 */
function listProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, MAXIMUM_LISTED_FAILURES).map((problem) => quoteBounded(problem));
  const more = problems.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
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
  if (problems.length > 0) throw badInput(`Bad job input: ${listProblems(problems)}`);
  const tools = input.tools.map((name) => {
    const spec = Object.hasOwn(toolSpecs, name) ? toolSpecs[name] : undefined;
    if (!spec) throw badInput(`Tool ${quoteBounded(name)} is not known to this workflow`);
    return spec;
  });
  return { tools, beforeToolCall: jobPolicyGate(input) };
}
