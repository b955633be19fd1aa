import { ApplicationFailure } from '@temporalio/workflow';
import type { BeforeToolCallHook } from '../core/index.js';
import { createPolicyGate } from '../policy/policy-gate.js';
import { parsePolicy } from '../policy/policy-file.js';
import type { AgentJobInput } from './job-types.js';

/**
 * The job's policy gate (R10). The input's policy is checked again here, since a client other
 * than `dar` may start a job: a bad policy (a pattern RE2 refuses, say) fails the job at once
 * as `BadInput`; a plain Error would retry the workflow task forever.
 */
export function jobPolicyGate(input: AgentJobInput): BeforeToolCallHook {
  try {
    const policy = input.policy === undefined ? undefined : parsePolicy(input.policy);
    return createPolicyGate({ workspace: input.workspace, policy });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw ApplicationFailure.nonRetryable(`Bad job input: ${message}`, 'BadInput');
  }
}
