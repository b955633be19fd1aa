import { Socket, createServer, type Server } from 'node:net';
import { PostgresJobStore, isRetryableStoreError } from '../../../src/store/index.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';

/**
 * Closing a PostgreSQL store while the database has stopped answering without closing its
 * connections (a network partition, a frozen host): `pg` sends its goodbye and waits for the
 * server to close its side, which never comes, so `close()` waited for good, and a worker's or
 * a library user's shutdown with it. A real PostgreSQL server, reached through a TCP relay on
 * 127.0.0.1 that the test can freeze: it stops passing bytes either way and closes nothing.
 */

/** A relay to `port` that can stop passing bytes, keeping every connection open. */
class FreezableRelay {
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  connections = 0;

  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<FreezableRelay> {
    const server = createServer();
    const relay = new FreezableRelay(server);
    server.on('connection', (client) => {
      relay.connections += 1;
      const upstream = new Socket();
      upstream.connect(port, '127.0.0.1');
      for (const socket of [client, upstream]) {
        relay.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => relay.sockets.delete(socket));
      }
      client.on('data', (data: Buffer) => {
        if (!relay.frozen) upstream.write(data);
      });
      upstream.on('data', (data: Buffer) => {
        if (!relay.frozen) client.write(data);
      });
      // While frozen, an end from either side is not passed on, nor answered.
      client.on('end', () => {
        if (!relay.frozen) upstream.end();
      });
      upstream.on('end', () => {
        if (!relay.frozen) client.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** From now on, nothing passes and nothing is closed. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) socket.allowHalfOpen = true;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let server: PostgresServer;
let relay: FreezableRelay;

beforeAll(async () => {
  server = await startPostgresServer();
  relay = await FreezableRelay.start(server.port);
}, 120_000);

afterAll(async () => {
  await relay?.close();
  await server?.destroy();
});

test('close() ends within its limit on a database that stopped answering, its listener and its pool connections included; a statement waiting for its answer fails, retryable', async () => {
  const database = await server.createDatabase('stalled_close');
  const url = new URL(database);
  url.port = String(relay.port);
  const closeLimitMs = 1_500;
  const store = new PostgresJobStore({
    connectionString: url.toString(),
    closeTimeoutMs: closeLimitMs,
    follow: { intervalMs: 50 },
  });
  const ref = await store.putObject({ before: 'the stall' });
  await store.appendEvents('job-1', [{ seq: 1, event: { type: 'agent_start' } }]);

  // A follower: its LISTEN connection is open once it has waited for a notice.
  const stopFollowing = new AbortController();
  const seen: number[] = [];
  const following = (async () => {
    for await (const stored of store.followEvents('job-1', 0, stopFollowing.signal)) {
      seen.push(stored.seq);
    }
  })();
  const deadline = Date.now() + 10_000;
  while (relay.connections < 2 || seen.length === 0) {
    if (Date.now() > deadline) throw new Error('the follower did not start listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  relay.freeze();
  const waiting = store.getObject(ref).then(
    () => 'answered',
    (error: unknown) => error,
  );
  stopFollowing.abort();
  await following;

  const started = Date.now();
  await store.close();
  const closedInMs = Date.now() - started;
  expect(closedInMs).toBeGreaterThanOrEqual(closeLimitMs - 100);
  expect(closedInMs).toBeLessThan(closeLimitMs + 3_000);
  const outcome = await waiting;
  expect(outcome).not.toBe('answered');
  expect(isRetryableStoreError(outcome)).toBe(true);
}, 60_000);
