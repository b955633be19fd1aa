import { IllegalStateError, Runtime, type LogLevel } from '@temporalio/worker';
import { CliLogger } from './cli-logger.js';

export interface CliRuntimeOptions {
  /**
   * `host:port` where the Temporal SDK serves its own Prometheus metrics (workers' task slots,
   * polls, latencies); none when unset. Only the first install of a process counts.
   */
  prometheusBindAddress?: string;
}

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/**
 * Sets up the Temporal runtime of a `dar` process before its first worker connection. Every log
 * line goes to stderr, so that stdout carries only a command's output (`--json`: one JSON value
 * a line): the SDK's logger writes to stderr, and the native core's own lines (which it would
 * print on stdout) are forwarded to that logger. Temporal's INFO lines would drown a job's
 * output: the level is WARN unless DAR_LOG_LEVEL says otherwise. The runtime remembers these
 * options when it is started again after its last connection closed.
 */
export function installCliRuntime(
  environment: NodeJS.ProcessEnv = process.env,
  options: CliRuntimeOptions = {},
): void {
  const wanted = (environment.DAR_LOG_LEVEL ?? 'WARN').toUpperCase();
  const level = LEVELS.find((name) => name === wanted) ?? 'WARN';
  try {
    Runtime.install({
      logger: new CliLogger(level),
      telemetryOptions: {
        logging: { filter: { core: level, other: level }, forward: {} },
        ...(options.prometheusBindAddress
          ? { metrics: { prometheus: { bindAddress: options.prometheusBindAddress } } }
          : {}),
      },
      // Signals are handled by each command (e.g. `dar run` detaches on Ctrl-C).
      shutdownSignals: [],
    });
  } catch (error) {
    // Started already in this process (an earlier connection): it is kept.
    if (!(error instanceof IllegalStateError)) throw error;
  }
}
