import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from '../../src/server/ports.js';

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster that a test file starts and deletes. */
export interface PostgresServer {
  port: number;
  /** A URL of the `postgres` maintenance database. */
  url: string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: connected clients are told to go). */
  stop(): Promise<void>;
  /** Starts the same server again, same data, same port. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * Starts a fresh cluster on 127.0.0.1 on a free port: `initdb --auth=trust`, fsync off, its
 * socket in its own temporary folder. PostgreSQL refuses to run as root, so as root the
 * folder is given to the `postgres` system user and the commands run as that user.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const binaries = findPostgresBinaries();
  const folder = await mkdtemp(join(tmpdir(), 'dar-postgres-'));
  const dataFolder = join(folder, 'data');
  const logFile = join(folder, 'server.log');
  const asUser = await postgresUser(folder);
  const postgresCommand = (tool: string, args: string[]) =>
    run(...asUser(join(binaries, tool), args), { timeout: 60_000 });

  try {
    await postgresCommand('initdb', [
      '--pgdata',
      dataFolder,
      '--auth=trust',
      '--username=postgres',
      '--encoding=UTF8',
      '--no-locale',
      '--no-sync',
    ]);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  const port = await findFreePort('127.0.0.1');
  const serverOptions = [
    `-p ${port}`,
    `-k ${folder}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  let running = false;

  const start = async () => {
    await postgresCommand('pg_ctl', [
      '--pgdata',
      dataFolder,
      '--log',
      logFile,
      '--wait',
      '--timeout=60',
      '-o',
      serverOptions,
      'start',
    ]).catch((error: unknown) => {
      throw new Error(`PostgreSQL did not start: ${String(error)}\n${readLog(logFile)}`);
    });
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    await postgresCommand('pg_ctl', ['--pgdata', dataFolder, '--mode=fast', '--wait', 'stop']);
    running = false;
  };
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  try {
    await start();
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url,
    start,
    stop,
    async createDatabase(name: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async destroy() {
      try {
        await stop();
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}

/** The folder holding `initdb` and `pg_ctl`: on PATH, else the newest /usr/lib/postgresql. */
export function findPostgresBinaries(): string {
  const candidates = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const installed = '/usr/lib/postgresql';
  if (existsSync(installed)) {
    const versions = readdirNumbers(installed).sort((left, right) => right - left);
    candidates.push(...versions.map((version) => join(installed, String(version), 'bin')));
  }
  const found = candidates.find(
    (folder) => existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl')),
  );
  if (!found) {
    throw new Error(
      'PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin): apt-get install postgresql',
    );
  }
  return found;
}

export function isPostgresInstalled(): boolean {
  try {
    findPostgresBinaries();
    return true;
  } catch {
    return false;
  }
}

function readdirNumbers(folder: string): number[] {
  return readdirSync(folder)
    .map(Number)
    .filter((value) => Number.isFinite(value));
}

/**
 * How to run a PostgreSQL tool: directly, or as root through `runuser -u postgres` (after
 * giving the folder to that user), since the server will not run as root.
 */
async function postgresUser(
  folder: string,
): Promise<(file: string, args: string[]) => [string, string[]]> {
  if (process.getuid?.() !== 0) return (file, args) => [file, args];
  const { uid, gid } = systemUser('postgres');
  await chown(folder, uid, gid);
  if (existsSync('/usr/sbin/runuser') || existsSync('/sbin/runuser')) {
    return (file, args) => ['runuser', ['-u', 'postgres', '--', file, ...args]];
  }
  return (file, args) => [
    'su',
    ['postgres', '-s', '/bin/sh', '-c', [file, ...args].map(shellQuote).join(' ')],
  ];
}

function systemUser(name: string): { uid: number; gid: number } {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`No "${name}" system user to run PostgreSQL as (it refuses to run as root)`);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-4000);
  } catch {
    return '(no server log)';
  }
}
