import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the cluster's Temporal server and SQL tool (scripts/cluster/build-temporal.sh: about 4
 * minutes on 2 cores the first time, no time once cached), before any benchmark runs so that
 * the build's CPU disturbs no measurement. Without it the cluster case started the build itself
 * in the middle of the run and gave up when the build outlasted its wait for the server.
 *
 * Returns undefined when the server is ready, or why it could not be built (no `go`, no module
 * proxy): the run goes on without the cluster case and says so.
 */
export function buildClusterServer(): string | undefined {
  const script = fileURLToPath(new URL('../../scripts/cluster/build-temporal.sh', import.meta.url));
  console.log("Building the cluster case's Temporal server (cached after the first build) ...");
  const build = spawnSync('bash', [script], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (build.status === 0) return undefined;
  const reason =
    build.error?.message ??
    (build.stderr.trim().split('\n').slice(-5).join('\n') ||
      `exit ${build.status ?? build.signal}`);
  return `the cluster's Temporal server could not be built (scripts/cluster/build-temporal.sh): ${reason}`;
}
