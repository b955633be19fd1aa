#!/usr/bin/env node
// A real Temporal cluster on this machine, without Docker, set up like docker-compose.yml's:
// PostgreSQL from the machine's binaries (own data folder, free port), the schemas set up by
// deploy/temporal/setup-postgres-schema.sh, the Temporal server (built from the module proxy at
// the compose file's version, all four services in one process) started with the compose
// service's environment, and the namespace and search attributes registered by
// deploy/temporal/setup-namespace.sh. It also creates the `dar_store` database for the job store.
//
//   node scripts/cluster/cluster.mjs up FOLDER            # prints TEMPORAL_ADDRESS=... DAR_STORE_URL=...
//   node scripts/cluster/cluster.mjs up FOLDER --durable --metrics   # for benchmarks (below)
//   node scripts/cluster/cluster.mjs server-stop FOLDER   # stops the Temporal server only (SIGTERM)
//   node scripts/cluster/cluster.mjs server-start FOLDER  # starts it again: same database, same ports
//   node scripts/cluster/cluster.mjs env FOLDER           # prints the variables again
//   node scripts/cluster/cluster.mjs down FOLDER          # stops everything and deletes FOLDER
//
// FOLDER holds PostgreSQL's data, the server's log and cluster.json (ports, pids). PostgreSQL runs
// with fsync off: this is a cluster for tests, not for keeping data. `--durable` runs it as a
// production PostgreSQL does (each commit flushed to disk: PostgreSQL's defaults), so that a
// benchmark pays what a real cluster pays; `--metrics` has the server publish its Prometheus
// metrics on a free port (`up` and `env` then print TEMPORAL_METRICS_URL=...).
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  SERVER_PORT_VARIABLES,
  namespaceEnvironment,
  postgresCredentials,
  readCompose,
  schemaEnvironment,
  serverEnvironment,
  serverVersion,
} from './compose-settings.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const STORE_DATABASE = 'dar_store';
const READY_TIMEOUT_MS = 90_000;

/** Thrown for what stops a command; the message is printed as it is. */
class ClusterError extends Error {}

function fail(message) {
  throw new ClusterError(message);
}

function say(line) {
  console.error(line);
}

// ---- Processes and ports

function isRunning(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * `count` distinct free ports on 127.0.0.1, all held open until all are picked. Below 32768:
 * Temporal stores its services' ports in a PostgreSQL smallint (cluster membership).
 */
async function freePorts(count) {
  const servers = [];
  const listen = (port) =>
    new Promise((done) => {
      const server = createServer();
      server.once('error', () => done(undefined));
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => done(server));
    });
  try {
    for (let attempt = 0; servers.length < count; attempt += 1) {
      if (attempt > 1000) fail('No free ports between 20000 and 32767 on 127.0.0.1');
      const port = 20000 + Math.floor(Math.random() * 12768);
      if (servers.some((server) => server.address().port === port)) continue;
      const server = await listen(port);
      if (server) servers.push(server);
    }
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  }
}

function run(file, args, options = {}) {
  const result = spawnSync(file, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new Error(
      `${[file, ...args].join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})\n${output}`,
    );
  }
  return result.stdout ?? '';
}

/** This process's PATH (the machine's tools). */
function basePath() {
  return process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
}

// ---- PostgreSQL

function findPostgresBinaries() {
  const candidates = basePath().split(delimiter).filter(Boolean);
  const installed = '/usr/lib/postgresql';
  if (existsSync(installed)) {
    const versions = readdirSync(installed)
      .map(Number)
      .filter((version) => Number.isFinite(version))
      .sort((left, right) => right - left);
    candidates.push(...versions.map((version) => join(installed, String(version), 'bin')));
  }
  const found = candidates.find(
    (folder) => existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl')),
  );
  if (!found) fail('PostgreSQL is not installed (no initdb): apt-get install postgresql');
  return found;
}

function postgresUserIds() {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === 'postgres') return { uid: Number(uid), gid: Number(gid) };
  }
  fail('No "postgres" system user to run PostgreSQL as (it refuses to run as root)');
}

/** Runs a PostgreSQL tool, as the `postgres` user when this process is root. */
function postgresTool(tool, args) {
  const file = join(findPostgresBinaries(), tool);
  if (process.getuid?.() !== 0) return run(file, args);
  return run('runuser', ['-u', 'postgres', '--', file, ...args]);
}

function postgresFolder(folder) {
  return join(folder, 'postgres');
}

/** Settings for tests (nothing flushed), or PostgreSQL's own defaults when `durable`. */
function postgresSettings(durable) {
  if (durable) return [];
  return ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
}

function startPostgres(folder, port, durable) {
  const home = postgresFolder(folder);
  postgresTool('pg_ctl', [
    '--pgdata',
    join(home, 'data'),
    '--log',
    join(home, 'server.log'),
    '--wait',
    '--timeout=60',
    '-o',
    [
      `-p ${port}`,
      `-k ${home}`,
      '-c listen_addresses=127.0.0.1',
      ...postgresSettings(durable),
    ].join(' '),
    'start',
  ]);
}

function initPostgres(folder, { user, password }) {
  const home = postgresFolder(folder);
  mkdirSync(home, { recursive: true });
  const passwordFile = join(home, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    // The server runs as `postgres`: it must reach its folder and own it.
    chmodSync(folder, 0o755);
    const { uid, gid } = postgresUserIds();
    chownSync(home, uid, gid);
    chownSync(passwordFile, uid, gid);
  }
  // Passwords over TCP (as in the compose file's PostgreSQL); the local socket trusts.
  postgresTool('initdb', [
    '--pgdata',
    join(home, 'data'),
    `--username=${user}`,
    `--pwfile=${passwordFile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  rmSync(passwordFile);
}

function stopPostgres(folder) {
  const data = join(postgresFolder(folder), 'data');
  if (!existsSync(join(data, 'postmaster.pid'))) return;
  postgresTool('pg_ctl', ['--pgdata', data, '--mode=fast', '--wait', 'stop']);
}

async function createStoreDatabase(state) {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: state.postgres.port,
    user: state.postgres.user,
    password: state.postgres.password,
    database: 'postgres',
  });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(STORE_DATABASE)}`);
  } finally {
    await client.end();
  }
}

// ---- Temporal

/** The Temporal CLI (for the namespace script and health checks), found like the runner finds it. */
function temporalCli() {
  const candidates = [
    process.env.TEMPORAL_CLI_PATH,
    ...basePath()
      .split(delimiter)
      .filter(Boolean)
      .map((folder) => join(folder, 'temporal')),
    join(root, '.temporal', 'pip', 'bin', 'temporal'),
  ].filter(Boolean);
  const found = candidates.find((path) => existsSync(path));
  if (!found) fail('No Temporal CLI found: run `npm run temporal:install`');
  return found;
}

/** This environment without Temporal client settings that would point the CLI elsewhere. */
function cleanEnvironment(extraPath) {
  const environment = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('TEMPORAL_') || key.startsWith('DAR_')) continue;
    environment[key] = value;
  }
  environment.PATH = [...extraPath, basePath()].join(delimiter);
  return environment;
}

function buildServer() {
  const result = spawnSync('bash', [join(root, 'scripts/cluster/build-temporal.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) fail('Building the Temporal server failed (see above).');
  const lines = result.stdout.trim().split('\n');
  return lines[lines.length - 1];
}

function serverAddress(state) {
  return `127.0.0.1:${state.ports.FRONTEND_GRPC_PORT}`;
}

function isServing(state) {
  const health = spawnSync(
    temporalCli(),
    ['operator', 'cluster', 'health', '--address', serverAddress(state)],
    { encoding: 'utf8', env: cleanEnvironment([]), timeout: 10_000 },
  );
  return health.status === 0 && /SERVING/.test(health.stdout);
}

/** Starts `temporal-server start` (the image's command) with the compose service's environment. */
async function startServer(folder, state) {
  const compose = readCompose(root);
  const environment = {
    PATH: basePath(),
    HOME: process.env.HOME ?? folder,
    ...serverEnvironment(compose, root, { postgresPort: state.postgres.port, ports: state.ports }),
    ...(state.metricsPort ? { PROMETHEUS_ENDPOINT: `127.0.0.1:${state.metricsPort}` } : {}),
  };
  const log = openSync(join(folder, 'temporal-server.log'), 'a');
  const child = spawn(join(state.binaries, 'temporal-server'), ['start'], {
    cwd: folder,
    env: environment,
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.unref();
  state.server = { pid: child.pid };
  saveState(folder, state);
  const started = Date.now();
  while (!isServing(state)) {
    if (!isRunning(child.pid)) {
      fail(`The Temporal server exited at start:\n${tail(join(folder, 'temporal-server.log'))}`);
    }
    if (Date.now() - started > READY_TIMEOUT_MS) {
      fail(`The Temporal server was not serving after ${READY_TIMEOUT_MS / 1000} s`);
    }
    await sleep(250);
  }
  say(`Temporal server serving on ${serverAddress(state)} (${Date.now() - started} ms).`);
}

async function stopServer(folder, state) {
  const pid = state.server?.pid;
  if (pid && isRunning(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (isRunning(pid) && Date.now() < deadline) await sleep(100);
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    while (isRunning(pid)) await sleep(50);
  }
  delete state.server;
  saveState(folder, state);
}

function tail(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---- State

function statePath(folder) {
  return join(folder, 'cluster.json');
}

function saveState(folder, state) {
  writeFileSync(statePath(folder), `${JSON.stringify(state, null, 2)}\n`);
}

function loadState(folder) {
  try {
    return JSON.parse(readFileSync(statePath(folder), 'utf8'));
  } catch {
    fail(`No cluster in ${folder} (no cluster.json)`);
  }
}

function printEnvironment(state) {
  const { user, password, port } = state.postgres;
  console.log(`TEMPORAL_ADDRESS=${serverAddress(state)}`);
  console.log(`TEMPORAL_NAMESPACE=${state.namespace}`);
  console.log(
    `DAR_STORE_URL=postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${STORE_DATABASE}`,
  );
  if (state.metricsPort) {
    console.log(`TEMPORAL_METRICS_URL=http://127.0.0.1:${state.metricsPort}/metrics`);
  }
}

// ---- Commands

async function up(folder, { durable, metrics }) {
  const compose = readCompose(root);
  const binaries = join(buildServer(), 'bin');
  const schemaDir = join(dirname(binaries), 'schema');
  mkdirSync(folder, { recursive: true });
  const [postgresPort, metricsPort, ...serverPorts] = await freePorts(
    2 + SERVER_PORT_VARIABLES.length,
  );
  const ports = Object.fromEntries(
    SERVER_PORT_VARIABLES.map((name, index) => [name, serverPorts[index]]),
  );
  const credentials = postgresCredentials(compose);
  const setup = namespaceEnvironment(compose, { address: '' });
  const state = {
    version: serverVersion(compose),
    binaries,
    postgres: { port: postgresPort, ...credentials },
    ports,
    namespace: setup.TEMPORAL_NAMESPACE ?? 'default',
    durable,
    ...(metrics ? { metricsPort } : {}),
  };
  saveState(folder, state);
  const started = Date.now();

  initPostgres(folder, credentials);
  startPostgres(folder, postgresPort, durable);
  say(`PostgreSQL on 127.0.0.1:${postgresPort}${durable ? ' (each commit flushed)' : ''}.`);

  say('Schemas (deploy/temporal/setup-postgres-schema.sh) ...');
  // The compose scripts' own output goes to stderr, as progress.
  run('sh', [join(root, 'deploy/temporal/setup-postgres-schema.sh')], {
    stdio: ['ignore', 2, 2],
    env: {
      ...cleanEnvironment([binaries]),
      ...schemaEnvironment(compose, { postgresPort, schemaDir }),
    },
  });
  await createStoreDatabase(state);

  await startServer(folder, state);

  say('Namespace and search attributes (deploy/temporal/setup-namespace.sh) ...');
  run('sh', [join(root, 'deploy/temporal/setup-namespace.sh')], {
    stdio: ['ignore', 2, 2],
    env: {
      ...cleanEnvironment([dirname(temporalCli())]),
      ...namespaceEnvironment(compose, { address: serverAddress(state) }),
    },
  });
  say(`Cluster up in ${Date.now() - started} ms (server ${state.version}).`);
  printEnvironment(state);
}

async function down(folder) {
  if (!existsSync(statePath(folder))) return;
  const state = loadState(folder);
  await stopServer(folder, state);
  stopPostgres(folder);
  rmSync(folder, { recursive: true, force: true });
}

const UP_OPTIONS = ['--durable', '--metrics'];

async function main([command, folderArgument, ...options]) {
  if (!command || !folderArgument) {
    fail('usage: cluster.mjs up|down|server-stop|server-start|env FOLDER [--durable] [--metrics]');
  }
  const unknown = options.filter((option) => command !== 'up' || !UP_OPTIONS.includes(option));
  if (unknown.length > 0) fail(`Unknown option ${unknown[0]} (up takes ${UP_OPTIONS.join(', ')})`);
  const folder = resolve(folderArgument);
  switch (command) {
    case 'up':
      if (existsSync(statePath(folder))) fail(`${folder} already has a cluster (run down first)`);
      try {
        await up(folder, {
          durable: options.includes('--durable'),
          metrics: options.includes('--metrics'),
        });
      } catch (error) {
        await down(folder).catch(() => undefined);
        throw error;
      }
      break;
    case 'down':
      await down(folder);
      break;
    case 'server-stop':
      await stopServer(folder, loadState(folder));
      break;
    case 'server-start':
      await startServer(folder, loadState(folder));
      break;
    case 'env':
      printEnvironment(loadState(folder));
      break;
    default:
      fail(`Unknown command ${command}`);
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof ClusterError ? error.message : error);
  process.exitCode = 1;
}
