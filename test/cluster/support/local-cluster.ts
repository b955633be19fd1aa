import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../e2e/support/dar.js';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts', 'cluster', 'cluster.mjs');

/**
 * A real Temporal cluster on PostgreSQL started by scripts/cluster/cluster.mjs (the server built
 * at docker-compose.yml's version, set up by the compose file's own scripts).
 */
export interface LocalCluster {
  folder: string;
  /** TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and DAR_STORE_URL, as `cluster.mjs up` printed them. */
  env: Record<string, string>;
  address: string;
  storeUrl: string;
  /** The script's progress lines (stderr) from `up`. */
  setupLog: string;
  /** The Temporal server's pid from the script's cluster.json; undefined while it is stopped. */
  serverPid(): number | undefined;
  /** `cluster.mjs server-stop`: the Temporal server process ends; PostgreSQL keeps running. */
  stopServer(): Promise<void>;
  /** `cluster.mjs server-start`: the server again, same database and ports; resolves when serving. */
  startServer(): Promise<void>;
  /** `cluster.mjs down`: everything stopped, the folder deleted. */
  down(): Promise<void>;
}

function cluster(command: string, folder: string, timeout = 120_000, options: string[] = []) {
  return run(process.execPath, [SCRIPT, command, folder, ...options], { cwd: REPO_ROOT, timeout });
}

/** Parses `KEY=VALUE` lines. */
export function parseEnvironmentLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] && match[2] !== undefined) env[match[1]] = match[2];
  }
  return env;
}

/** `upOptions`: `cluster.mjs up`'s flags (`--durable`, `--metrics`). */
export async function startLocalCluster(upOptions: string[] = []): Promise<LocalCluster> {
  const folder = mkdtempSync(join(tmpdir(), 'dar-cluster-'));
  const { stdout, stderr } = await cluster('up', folder, 240_000, upOptions);
  const env = parseEnvironmentLines(stdout);
  const address = env.TEMPORAL_ADDRESS;
  const storeUrl = env.DAR_STORE_URL;
  if (!address || !storeUrl) {
    throw new Error(`cluster.mjs up printed no TEMPORAL_ADDRESS or DAR_STORE_URL:\n${stdout}`);
  }
  return {
    folder,
    env,
    address,
    storeUrl,
    setupLog: stderr,
    serverPid() {
      const state = JSON.parse(readFileSync(join(folder, 'cluster.json'), 'utf8')) as {
        server?: { pid: number };
      };
      return state.server?.pid;
    },
    async stopServer() {
      await cluster('server-stop', folder);
    },
    async startServer() {
      await cluster('server-start', folder);
    },
    async down() {
      await cluster('down', folder);
    },
  };
}
