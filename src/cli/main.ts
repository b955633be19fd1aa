import { DefaultLogger, Runtime } from '@temporalio/worker';
import { batchCommand, batchUsage } from './commands/batch.js';
import {
  cancelCommand,
  cancelUsage,
  followUpUsage,
  messageCommand,
  steerUsage,
} from './commands/control.js';
import { eventsCommand, eventsUsage } from './commands/events.js';
import { listCommand, listUsage } from './commands/list.js';
import { runCommand, runUsage } from './commands/run.js';
import { serverCommand, serverUsage } from './commands/server.js';
import { statusCommand, statusUsage } from './commands/status.js';
import { workerCommand, workerUsage } from './commands/worker.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from './usage-error.js';

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, { run: Command; usage: string }> = {
  run: { run: runCommand, usage: runUsage },
  batch: { run: batchCommand, usage: batchUsage },
  worker: { run: workerCommand, usage: workerUsage },
  events: { run: eventsCommand, usage: eventsUsage },
  status: { run: statusCommand, usage: statusUsage },
  list: { run: listCommand, usage: listUsage },
  cancel: { run: cancelCommand, usage: cancelUsage },
  steer: { run: messageCommand('steer'), usage: steerUsage },
  'follow-up': { run: messageCommand('follow-up'), usage: followUpUsage },
  server: { run: serverCommand, usage: serverUsage },
};

function usage(): string {
  return [
    'durable-agent-runner: agent jobs as Temporal workflows',
    '',
    ...Object.values(commands).map((command) => `  ${command.usage}`),
    '',
    'Without TEMPORAL_ADDRESS, commands use a local Temporal dev server kept under ./.dar',
    '(DAR_STATE_DIR or --state-dir to move it), started in the background when needed.',
  ].join('\n');
}

/** Temporal's own INFO lines would drown the job's output; DAR_LOG_LEVEL brings them back. */
function installRuntime(): void {
  const level = (process.env.DAR_LOG_LEVEL ?? 'WARN').toUpperCase();
  const valid = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
  const chosen = valid.find((name) => name === level) ?? 'WARN';
  // Signals are handled by each command (e.g. `dar run` detaches on Ctrl-C).
  Runtime.install({ logger: new DefaultLogger(chosen), shutdownSignals: [] });
}

/** Runs one `dar` command line; resolves with the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`dar: unknown command "${name}"; run \`dar help\`\n`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help')) {
    console.log(`usage: ${command.usage}`);
    return EXIT_OK;
  }
  try {
    installRuntime();
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`dar ${name}: ${error.message.replace(/^dar \S+: /, '')}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(
      `dar ${name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return EXIT_FAILED;
  }
}
