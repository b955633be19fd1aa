import { watchStdout } from './closed-output.js';
import { commands } from './command-table.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from './usage-error.js';

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
  watchStdout();
  try {
    const run = await command.load();
    return await run(rest);
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
