import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import {
  ARGUMENT_SHIM_FAILURE,
  NO_TOOLS_HERE,
  TOOLS_TOO_LARGE,
} from '../tools/user/failure-types.js';
import { HostFailure, utf8ByteLength, type ToolSpec } from '../core/index.js';
import { specOfDescription } from '../tools/user/tool-description.js';
import { BAD_INPUT } from './job-input-check.js';
import { jobInputProblems } from './job-input-schema.js';
import type { AgentJobInput } from './job-types.js';
import type { ReleaseFeatures } from './release-features.js';

/**
 * Marks histories of jobs that named tools outside the workflow bundle and had them described
 * by their worker. A history recorded before (such a job failed as `BadInput` at once) replays
 * as it ran.
 */
export const USER_TOOLS_PATCH = 'dar-user-tools';

const { describeTools, prepareToolArguments } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [ARGUMENT_SHIM_FAILURE, NO_TOOLS_HERE],
  },
});

/**
 * The application failure a local activity failed with. The workflow receives it bare, not
 * inside an `ActivityFailure` as a (remote) activity's failure comes; both shapes are read.
 */
function applicationFailureOf(error: unknown): ApplicationFailure | undefined {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure ? failure : undefined;
}

/** A worker-side shim (R7): its thrown message becomes the call's error result. */
async function runArgumentShim(toolName: string, rawArguments: unknown): Promise<unknown> {
  try {
    return await prepareToolArguments({ toolName, rawArguments });
  } catch (error) {
    const failure = applicationFailureOf(error);
    if (failure?.type === ARGUMENT_SHIM_FAILURE) throw new Error(failure.message, { cause: error });
    // A read-only worker took the task: not the call's failure; another worker runs the shim.
    if (failure?.type === NO_TOOLS_HERE) {
      throw new HostFailure('No tools on this worker', { cause: error });
    }
    throw error;
  }
}

/**
 * The specs of the job's tools that its workflow bundle lacks, as the worker running this
 * workflow task describes them (a local activity: history keeps the answer, so a replay uses the
 * same specs whatever the worker's code is by then). A tool no worker knows fails the job at once
 * as `BadInput`. Nothing is asked, and no command issued, when every tool is in the bundle.
 */
export async function resolveUserTools(
  input: AgentJobInput,
  bundled: Readonly<Record<string, ToolSpec>>,
  features: ReleaseFeatures,
): Promise<Record<string, ToolSpec>> {
  // A malformed input is the input check's to report.
  if (jobInputProblems(input).length > 0) return {};
  const missing = [...new Set(input.tools.filter((name) => !Object.hasOwn(bundled, name)))];
  if (missing.length === 0 || !features.has(USER_TOOLS_PATCH)) return {};
  let described;
  try {
    // With the system prompt's size: both go by value in the run's first model call.
    described = await describeTools(
      missing,
      utf8ByteLength(JSON.stringify(input.systemPrompt ?? '')),
    );
  } catch (error) {
    const failure = applicationFailureOf(error);
    // A read-only worker took the task: failing the task hands it to a worker with tools.
    if (failure?.type === NO_TOOLS_HERE) {
      throw new Error('No tools on this worker', { cause: error });
    }
    if (failure?.type === TOOLS_TOO_LARGE) {
      throw ApplicationFailure.nonRetryable(failure.message, BAD_INPUT);
    }
    throw error;
  }
  if (described.unknown.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `Tool ${described.unknown.join(', ')} is not known to this workflow or its worker`,
      BAD_INPUT,
    );
  }
  const specs: Record<string, ToolSpec> = {};
  for (const description of described.tools) {
    specs[description.name] = specOfDescription(description, runArgumentShim);
  }
  return specs;
}
