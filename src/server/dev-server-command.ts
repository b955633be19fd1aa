import type { DevServerPorts } from './dev-server-files.js';
import { DAR_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/** The embedded server listens on loopback only: it is this machine's private engine. */
export const DEV_SERVER_HOST = '127.0.0.1';

/** The embedded server serves a single namespace. */
export const DEV_SERVER_NAMESPACE = 'default';

/** Temporal's usual ports, used when free so that the UI sits where people expect it. */
export const PREFERRED_PORTS: DevServerPorts = { port: 7233, uiPort: 8233 };

/**
 * `--search-attribute name=Type` arguments for the custom search attributes the runner needs
 * (`DarPhase`, `DarTurns`, `DarBatchId`); `start-dev` registers them, also on an existing database.
 */
export function devServerSearchAttributeArgs(): string[] {
  return DAR_SEARCH_ATTRIBUTES.flatMap(({ name, type }) => [
    '--search-attribute',
    `${name}=${type}`,
  ]);
}

/**
 * One partition per task queue, for dev servers started fresh (tests, benchmarks). Temporal
 * splits a task queue's rate limit (the model calls' pacing, `maxTaskQueueActivitiesPerSecond`)
 * evenly over its partitions (4 by default), each with its own one-second burst, so calls come
 * in bursts and a backlog stuck in one partition drains at a quarter of the rate. The embedded
 * server does not take these: its database may hold queues with a backlog in the other
 * partitions, which lowering the count would strand.
 */
export function devServerSinglePartitionArgs(): string[] {
  return [
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
  ];
}

/** The arguments (after the binary) that start the embedded dev server. */
export function devServerArguments(databaseFile: string, ports: DevServerPorts): string[] {
  return [
    'server',
    'start-dev',
    '--db-filename',
    databaseFile,
    '--ip',
    DEV_SERVER_HOST,
    '--port',
    String(ports.port),
    '--ui-port',
    String(ports.uiPort),
    '--namespace',
    DEV_SERVER_NAMESPACE,
    '--log-level',
    'warn',
    ...devServerSearchAttributeArgs(),
  ];
}
