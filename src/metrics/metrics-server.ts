import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentMetrics } from './agent-metrics.js';

export interface MetricsServerOptions {
  metrics: AgentMetrics;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface (default 0.0.0.0: Prometheus usually scrapes from another machine). */
  host?: string;
  /**
   * `host:port` of the Temporal SDK's own Prometheus endpoint in this process (see
   * `installCliRuntime`): its text is served after ours, so one scrape gets both.
   */
  sdkMetricsAddress?: string;
}

export interface RunningMetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `GET /metrics` in Prometheus' text format: the `dar_` metrics, then the SDK's. */
export async function startMetricsServer(
  options: MetricsServerOptions,
): Promise<RunningMetricsServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (request.method !== 'GET' || (path !== '/metrics' && path !== '/')) {
      response.writeHead(404).end('GET /metrics\n');
      return;
    }
    exposition(options).then(
      (text) => {
        response.writeHead(200, { 'Content-Type': options.metrics.registry.contentType }).end(text);
      },
      (error: unknown) => {
        response.writeHead(500).end(`${(error as Error).message}\n`);
      },
    );
  });
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host;
  return { url: `http://${shown}:${port}/metrics`, close: () => closeServer(server) };
}

async function exposition(options: MetricsServerOptions): Promise<string> {
  const ours = await options.metrics.text();
  if (!options.sdkMetricsAddress) return ours;
  try {
    const response = await fetch(`http://${options.sdkMetricsAddress}/metrics`, {
      signal: AbortSignal.timeout(5_000),
    });
    return `${ours}\n${await response.text()}`;
  } catch (error) {
    // The runner's metrics are still worth a scrape when the SDK's endpoint does not answer.
    return `${ours}\n# Temporal SDK metrics unavailable: ${(error as Error).message}\n`;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
