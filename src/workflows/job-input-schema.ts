import { Type, type Static } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { validatorFor } from '../core/index.js';

/** Longest batch id a job accepts; it becomes a search attribute value and part of workflow ids. */
export const MAX_BATCH_ID_CHARS = 256;

/**
 * The shape of `AgentJobInput`, checked once where a job enters the system: by the CLI before
 * anything starts, and by the workflow at entry, so that an API client's bad input fails the job
 * as `BadInput` instead of retrying a workflow task forever. Workflow-safe.
 */
export const agentJobInputSchema = Type.Object(
  {
    prompt: Type.String(),
    model: Type.String({ pattern: '^[A-Za-z0-9_-]+:.+' }),
    workspace: Type.String({ pattern: '^/' }),
    tools: Type.Array(Type.String({ minLength: 1 })),
    systemPrompt: Type.Optional(Type.String()),
    toolExecution: Type.Optional(
      Type.Union([Type.Literal('parallel'), Type.Literal('sequential')]),
    ),
    steeringMode: Type.Optional(Type.Union([Type.Literal('one-at-a-time'), Type.Literal('all')])),
    followUpMode: Type.Optional(Type.Union([Type.Literal('one-at-a-time'), Type.Literal('all')])),
    // Checked in depth by `parsePolicy`.
    policy: Type.Optional(Type.Object({ rules: Type.Array(Type.Unknown()) })),
    keepOpenMs: Type.Optional(Type.Integer({ minimum: 0 })),
    budget: Type.Optional(
      Type.Object(
        {
          maxTurns: Type.Optional(Type.Integer({ minimum: 1 })),
          maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
          maxCostUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          maxWallTimeMs: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    compaction: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
          reserveTokens: Type.Optional(Type.Integer({ minimum: 0 })),
          keepRecentTokens: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    batchId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_BATCH_ID_CHARS })),
    // Written by the job itself when it continues as new.
    carried: Type.Optional(Type.Object({})),
  },
  { additionalProperties: false },
);

export type CheckedJobInputShape = Static<typeof agentJobInputSchema>;

function describeProblem(error: ErrorObject): string {
  const path = error.instancePath.split('/').slice(1).join('.');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `${path === '' ? '' : `${path}.`}${params.additionalProperty}: is not a known field`;
  }
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return `${params.missingProperty}: is required`;
  }
  if (path === 'workspace' && error.keyword === 'pattern')
    return 'workspace: must be an absolute path';
  if (path === 'model' && error.keyword === 'pattern') {
    return 'model: must be provider:model-id (e.g. scripted:/path/script.json)';
  }
  return `${path === '' ? 'input' : path}: ${error.message ?? 'is invalid'}`;
}

/** The problems of a job input's shape, one line each; empty when it is well formed. */
export function jobInputProblems(input: unknown): string[] {
  const validate = validatorFor(agentJobInputSchema);
  if (validate(input)) return [];
  return [...new Set((validate.errors ?? []).map(describeProblem))];
}
