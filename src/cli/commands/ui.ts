import { MIN_TOKEN_LENGTH } from '../../console/access-token.js';
import { startConsoleServer } from '../../console/console-server.js';
import { isLoopbackHost } from '../../console/loopback-host.js';
import { getJob } from '../../client/job-client.js';
import { openConnection } from '../connection.js';
import { readJob } from '../job-reader.js';
import { StandbyWorker } from '../standby-worker.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a port number (0 for any free one), not "${text}"`);
  }
  return port;
}

/**
 * `dar ui`: serves the operator console (jobs, their events, cancel) until SIGINT or SIGTERM.
 * Prints the address to open; it carries the access token that every request needs.
 */
export async function uiCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'ui',
    argv,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      'state-dir': { type: 'string' },
    },
    { min: 0, max: 0, names: 'no argument' },
  );
  const host = values.host ?? '127.0.0.1';
  const port = portOf(values.port);
  const token = values.token ?? process.env.DAR_UI_TOKEN;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(`--token must be at least ${MIN_TOKEN_LENGTH} characters long`);
  }
  const connection = await openConnection(values['state-dir']);
  const standby = new StandbyWorker(connection);
  try {
    const server = await startConsoleServer({
      client: connection.client,
      store: connection.store,
      host,
      port,
      ...(token === undefined ? {} : { token }),
      // With no worker running, the approvals are answered by a workflow-only worker of dar's,
      // kept while the page keeps asking.
      askJob: (jobId, ask) =>
        readJob(connection, getJob(connection.client, jobId, connection.store), ask, standby),
    });
    console.log(`Operator console: ${server.loginUrl}`);
    if (!isLoopbackHost(host)) {
      process.stderr.write(
        `Listening on ${host}, reachable from other machines: keep the address secret ` +
          '(it carries the access token), and prefer a TLS proxy or an SSH tunnel.\n',
      );
    }
    process.stderr.write('Ctrl-C stops the console.\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    return EXIT_OK;
  } finally {
    await standby.close();
    await connection.close();
  }
}
