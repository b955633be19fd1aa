import { Socket } from 'node:net';

/**
 * The sockets of one store's connections (its pool's and its listener's), made here through
 * `pg`'s `stream` option, so that closing the store can end them all within a bound. Why: `pg`'s
 * `end()` sends its goodbye and then waits for the server to close its side of the connection,
 * which a server that stopped answering without closing (a network partition, a frozen host or
 * process) never does; the store's `close()` waited for good.
 */
export class StoreSockets {
  private readonly open = new Set<Socket>();

  /** For `pg`'s `stream` option: a new, unconnected socket (`pg` connects it). */
  readonly create = (): Socket => {
    const socket = new Socket();
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /** Closes every socket at once, without waiting for the server. */
  destroyAll(): void {
    for (const socket of this.open) socket.destroy();
  }
}

/**
 * Waits for `closing` at most `limitMs`; past it, runs `force` (which must make `closing`
 * settle, as destroying the sockets does) and waits for it again. Never rejects.
 */
export async function settleWithin(
  closing: Promise<unknown>,
  limitMs: number,
  force: () => void,
): Promise<void> {
  const settled = closing.then(
    () => true,
    () => true,
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
  });
  const inTime = await Promise.race([settled, late]);
  clearTimeout(timer);
  if (inTime) return;
  force();
  await settled;
}
