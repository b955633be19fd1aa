import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { getJob } from '../../../src/client/job-client.js';
import type { Message } from '../../../src/core/index.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { AgentJobResult } from '../../../src/workflows/job-types.js';
import { dar, type DarResult } from './dar.js';

/** What `<stateDir>/server.json` records about the embedded dev server. */
export interface ServerRecord {
  pid: number;
  port: number;
  uiPort: number;
  databaseFile: string;
}

/** The server record, or undefined when there is none (no server runs for this folder). */
export function readServerJson(stateDir: string): ServerRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
}

/** A client on the embedded server of `stateDir` (which must run), for history inspection. */
export async function connectToEmbeddedServer(
  stateDir: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const record = readServerJson(stateDir);
  if (!record) throw new Error(`No server.json in ${stateDir}`);
  const connection = await Connection.connect({ address: `127.0.0.1:${record.port}` });
  return {
    client: new Client({ connection, namespace: 'default' }),
    close: () => connection.close(),
  };
}

/** `dar server stop --state-dir DIR`. */
export function stopServer(stateDir: string): Promise<DarResult> {
  return dar(['server', 'stop', '--state-dir', stateDir], { timeoutMs: 30_000 });
}

/** A history event, reduced to what the tests look at. */
export interface HistoryEvent {
  eventId: number;
  kind: string;
  activityType?: string;
  attempt?: number;
  scheduledEventId?: number;
  failureMessage?: string;
  /** Who recorded the event: the worker (`pid@host`) of an activity or workflow task start. */
  identity?: string;
}

/**
 * The workflow's history as a list: `kind` is the name of the event's attributes without the
 * `EventAttributes` suffix (`activityTaskScheduled`, `activityTaskStarted`, ...).
 */
export async function readHistory(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => {
    const record = event as unknown as Record<string, unknown>;
    const key = Object.keys(record).find(
      (name) => name.endsWith('EventAttributes') && record[name] !== null,
    );
    const attributes = (key ? record[key] : {}) as {
      activityType?: { name?: string | null } | null;
      attempt?: number | null;
      scheduledEventId?: { toString(): string } | number | null;
      failure?: { message?: string | null } | null;
      identity?: string | null;
    };
    const reduced: HistoryEvent = {
      eventId: Number(event.eventId),
      kind: key ? key.replace(/EventAttributes$/, '') : 'unknown',
    };
    if (attributes.activityType?.name) reduced.activityType = attributes.activityType.name;
    if (typeof attributes.attempt === 'number') reduced.attempt = attributes.attempt;
    if (attributes.scheduledEventId != null) {
      reduced.scheduledEventId = Number(attributes.scheduledEventId.toString());
    }
    if (attributes.failure?.message) reduced.failureMessage = attributes.failure.message;
    if (attributes.identity) reduced.identity = attributes.identity;
    return reduced;
  });
}

/** The activity type of each scheduled activity, by its ActivityTaskScheduled event id. */
export function activityTypesBySchedule(history: HistoryEvent[]): Map<number, string> {
  const types = new Map<number, string>();
  for (const event of history) {
    if (event.kind === 'activityTaskScheduled' && event.activityType) {
      types.set(event.eventId, event.activityType);
    }
  }
  return types;
}

/**
 * A closed job's result with its whole transcript, read from the embedded job store of
 * `stateDir` as `dar` writes it (`<stateDir>/store`).
 */
export async function jobResult(
  client: Client,
  stateDir: string,
  workflowId: string,
): Promise<AgentJobResult & { messages: Message[] }> {
  const store = await FileJobStore.open({ folder: join(stateDir, 'store') });
  try {
    return await getJob(client, workflowId, store).result();
  } finally {
    await store.close();
  }
}
