import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';

/**
 * The custom search attributes of agent jobs, for Temporal's list filter
 * (`DarBatchId = 'x' AND DarPhase = 'running'`). Workflow-safe: the workflow upserts them.
 */
export const darPhaseKey = defineSearchAttributeKey('DarPhase', 'KEYWORD');
export const darTurnsKey = defineSearchAttributeKey('DarTurns', 'INT');
export const darBatchIdKey = defineSearchAttributeKey('DarBatchId', 'KEYWORD');

/**
 * The values `DarPhase` takes in jobs started by this release: `running` from the first model
 * call on (model call or tools: `dar status` tells which), `approval` while a tool call waits for
 * a human decision (R22), `waiting` while a kept-open job waits for a follow-up, `done`.
 */
export const DAR_PHASES = ['running', 'approval', 'waiting', 'done'] as const;
export type DarPhase = (typeof DAR_PHASES)[number];

/** What jobs started by earlier releases publish instead of `running`: each flip of a turn. */
export const RUNNING_PHASES_OF_EARLIER_RELEASES = ['model', 'tools'] as const;

/**
 * Each attribute with its type as the Temporal CLI and server spell it
 * (`temporal operator search-attribute create --name DarPhase --type Keyword`).
 */
export const DAR_SEARCH_ATTRIBUTES = [
  { key: darPhaseKey, name: darPhaseKey.name, type: 'Keyword' },
  { key: darTurnsKey, name: darTurnsKey.name, type: 'Int' },
  { key: darBatchIdKey, name: darBatchIdKey.name, type: 'Keyword' },
] as const;

/**
 * The patch id that guards the upserts: histories recorded before them replay without them
 * (R23), new runs record the patch marker and publish the attributes.
 */
export const SEARCH_ATTRIBUTES_PATCH = 'dar-search-attributes';

/**
 * What a client sets when it starts a job: `DarPhase` `running` and `DarTurns` 0, which a job
 * would otherwise publish in its first workflow task, and `DarBatchId` for a batch's job. A run
 * of release `2026-12g` on that finds them at its start does not upsert them again: one history
 * event and one visibility write less per job (`job-visibility.ts`).
 */
export function startSearchAttributes(batchId?: string): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: darPhaseKey, value: 'running' },
    { key: darTurnsKey, value: 0 },
  ];
  if (batchId !== undefined) pairs.push({ key: darBatchIdKey, value: batchId });
  return pairs;
}
