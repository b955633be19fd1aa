import { AgentMetrics } from '../../metrics/agent-metrics.js';
import { startMetricsServer, type RunningMetricsServer } from '../../metrics/metrics-server.js';
import { findFreePort } from '../../server/ports.js';
import { createAgentWorker } from '../../worker/agent-worker.js';
import { describeModelPacing } from '../../worker/model-pacing.js';
import { DEFAULT_TASK_QUEUE } from '../../worker/task-queue.js';
import { openConnection } from '../connection.js';
import { modelPacingOfFlags, modelRateOption } from '../model-rate-flag.js';
import { parseFlags } from '../parse-flags.js';
import { connectConfiguredMcpServers } from '../mcp-servers.js';
import { loadToolModules, toolModuleList, toolsOfModules } from '../tool-modules.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

/** `--metrics-port`, else `DAR_METRICS_PORT`; undefined when neither is set (no metrics). */
function metricsPort(flag: string | undefined): number | undefined {
  const raw = flag ?? (process.env.DAR_METRICS_PORT?.trim() || undefined);
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`dar worker: the metrics port must be 0 to 65535, not "${raw}"`);
  }
  return port;
}

/**
 * Runs jobs until SIGINT or SIGTERM, then shuts down: no new task is taken, workflow tasks under
 * way finish, and running activities are cancelled, so that their attempts fail at once and
 * Temporal retries them elsewhere sooner (a tool that is not replay-safe reads as interrupted).
 */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'worker',
    argv,
    {
      'state-dir': { type: 'string' },
      'metrics-port': { type: 'string' },
      tools: { type: 'string' },
      'mcp-config': { type: 'string' },
      ...modelRateOption,
    },
    { min: 0, max: 0, names: 'no argument' },
  );
  const modelPacing = modelPacingOfFlags(values['model-rate']);
  const port = metricsPort(values['metrics-port']);
  // `--tools ./a.js,./b.js`: modules whose tools this worker runs besides the built-in ones.
  const toolModules = await loadToolModules(toolModuleList(values.tools, process.cwd()));
  // `--mcp-config mcp.json`: MCP servers whose tools (`server__tool`) this worker runs too.
  const mcpServers = await connectConfiguredMcpServers(values['mcp-config'], 'worker');
  let connection: Awaited<ReturnType<typeof openConnection>>;
  try {
    connection = await openConnection(values['state-dir']);
  } catch (error) {
    await mcpServers?.close();
    throw error;
  }
  let metricsServer: RunningMetricsServer | undefined;
  try {
    const metrics = port === undefined ? undefined : new AgentMetrics();
    // The SDK serves its metrics on a private port; ours are served with them on one port.
    const sdkMetricsAddress =
      port === undefined ? undefined : `127.0.0.1:${await findFreePort('127.0.0.1')}`;
    const worker = await createAgentWorker({
      connection: await connection.workerConnection(
        sdkMetricsAddress ? { prometheusBindAddress: sdkMetricsAddress } : {},
      ),
      namespace: connection.namespace,
      store: connection.store,
      modelPacing,
      ...(metrics ? { metrics } : {}),
      tools: [...toolsOfModules(toolModules), ...(mcpServers?.tools ?? [])],
    });
    if (metrics && port !== undefined) {
      metricsServer = await startMetricsServer({
        metrics,
        port,
        ...(process.env.DAR_METRICS_HOST ? { host: process.env.DAR_METRICS_HOST } : {}),
        ...(sdkMetricsAddress ? { sdkMetricsAddress } : {}),
      });
      process.stderr.write(`Prometheus metrics at ${metricsServer.url}\n`);
    }
    const stop = () => {
      process.stderr.write('Shutting down: waiting for running tool and model calls...\n');
      worker.shutdown();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stderr.write(
      `Worker running on task queue ${DEFAULT_TASK_QUEUE} (namespace ${connection.namespace}), ` +
        `model calls on ${DEFAULT_TASK_QUEUE}-model-<provider>, pacing: ` +
        `${describeModelPacing(modelPacing)}; Ctrl-C stops it.\n`,
    );
    await worker.run();
    process.stderr.write('Worker stopped.\n');
    return EXIT_OK;
  } finally {
    await metricsServer?.close();
    await connection.close();
    await mcpServers?.close();
  }
}
