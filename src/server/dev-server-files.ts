import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where the embedded server keeps its things inside a state folder. */
export interface DevServerPaths {
  stateDir: string;
  /** The running server: {@link DevServerRecord}. Removed when it is stopped. */
  recordFile: string;
  /** The ports of the last start, kept across stops so that restarts reuse them. */
  portsFile: string;
  /** SQLite database: the workflows that survive restarts. */
  databaseFile: string;
  /** The detached server's stdout and stderr, appended to across starts. */
  logFile: string;
  /** Held (created exclusively) while one process starts or stops the server. */
  lockFile: string;
  /** Where the Temporal SDK download puts the CLI when none is installed. */
  binaryDir: string;
}

/** What `server.json` says about the running server. */
export interface DevServerRecord {
  pid: number;
  port: number;
  uiPort: number;
  binaryPath: string;
  databaseFile: string;
  /** ISO time of the start. */
  startedAt: string;
}

export interface DevServerPorts {
  port: number;
  uiPort: number;
}

/** The file layout of a state folder (made absolute). */
export function devServerPaths(stateDir: string): DevServerPaths {
  const folder = resolve(stateDir);
  return {
    stateDir: folder,
    recordFile: join(folder, 'server.json'),
    portsFile: join(folder, 'server-ports.json'),
    databaseFile: join(folder, 'temporal.db'),
    logFile: join(folder, 'server.log'),
    lockFile: join(folder, 'server.lock'),
    binaryDir: join(folder, 'bin'),
  };
}

/** The recorded server, or undefined when there is no record or it is unreadable. */
export function readServerRecord(paths: DevServerPaths): DevServerRecord | undefined {
  const value = readJson(paths.recordFile);
  if (!isObject(value)) return undefined;
  const { pid, port, uiPort, binaryPath, databaseFile, startedAt } = value;
  if (!isPort(port) || !isPort(uiPort) || typeof pid !== 'number' || !(pid > 0)) return undefined;
  if (typeof binaryPath !== 'string' || typeof databaseFile !== 'string') return undefined;
  return { pid, port, uiPort, binaryPath, databaseFile, startedAt: String(startedAt) };
}

export function writeServerRecord(paths: DevServerPaths, record: DevServerRecord): void {
  writeJsonAtomically(paths.recordFile, record);
}

export function removeServerRecord(paths: DevServerPaths): void {
  rmSync(paths.recordFile, { force: true });
}

/** The ports of the last start, if any were saved. */
export function readSavedPorts(paths: DevServerPaths): DevServerPorts | undefined {
  const value = readJson(paths.portsFile);
  if (!isObject(value) || !isPort(value.port) || !isPort(value.uiPort)) return undefined;
  return { port: value.port, uiPort: value.uiPort };
}

export function writeSavedPorts(paths: DevServerPaths, ports: DevServerPorts): void {
  writeJsonAtomically(paths.portsFile, ports);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A reader never sees a half-written file: write a sibling, then rename over. */
function writeJsonAtomically(file: string, value: unknown): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, file);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 65536;
}
