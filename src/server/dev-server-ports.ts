import { DEV_SERVER_HOST, PREFERRED_PORTS } from './dev-server-command.js';
import type { DevServerPorts } from './dev-server-files.js';
import { findFreePort, isPortFree } from './ports.js';

/**
 * Per port: the saved one if free, else Temporal's usual one if free, else a random free one.
 * With `preferKnown` false, random free ports only (after a lost race for a known one).
 */
export async function choosePorts(
  saved: DevServerPorts | undefined,
  preferKnown = true,
): Promise<DevServerPorts> {
  const known = preferKnown
    ? [saved, PREFERRED_PORTS].filter((ports): ports is DevServerPorts => ports !== undefined)
    : [];
  const port = await firstFree(
    known.map((ports) => ports.port),
    [],
  );
  const uiPort = await firstFree(
    known.map((ports) => ports.uiPort),
    [port],
  );
  return { port, uiPort };
}

async function firstFree(candidates: number[], taken: number[]): Promise<number> {
  for (const candidate of candidates) {
    if (!taken.includes(candidate) && (await isPortFree(candidate, DEV_SERVER_HOST))) {
      return candidate;
    }
  }
  for (;;) {
    const port = await findFreePort(DEV_SERVER_HOST);
    if (!taken.includes(port)) return port;
  }
}
