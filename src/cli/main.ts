import { watchStdout } from './closed-output.js';
import { commandHelp } from './command-help.js';
import { commands } from './command-table.js';
import { closestName } from './unknown-flag.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from './usage-error.js';
import { describeStoreError } from '../store/store-errors.js';
// The limits alone: `dar --help` loads no more than it needs (see fast-cli.test.ts).
import { MAXIMUM_ERROR_TEXT_LENGTH, MAXIMUM_QUOTED_LENGTH, quoteBounded } from '../core/limits.js';
import { terminalText } from '../client/terminal-text.js';

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

/** This package's version, from its `package.json`. */
async function darVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/**
 * Longest line of an error `dar` prints: errors quote the arguments they refuse, and an argument
 * can be any size (a pasted file for a model name, say).
 */
const LONGEST_ERROR_LINE = 2 * MAXIMUM_ERROR_TEXT_LENGTH;

/**
 * Writes an error's text to stderr, each of its lines bounded, its control characters shown
 * (an error can quote a provider's answer or a tool's output: see `terminalText`).
 */
function writeError(text: string): void {
  const lines = terminalText(text)
    .split('\n')
    .map((line) => quoteBounded(line, LONGEST_ERROR_LINE));
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** Runs one `dar` command line; resolves with the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(await darVersion());
    return EXIT_OK;
  }
  // `dar help run` is `dar run --help`.
  const topic = name === 'help' ? rest[0] : undefined;
  if (name === undefined || ((name === 'help' || name === '--help' || name === '-h') && !topic)) {
    console.log(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const commandName = topic ?? name;
  const command = Object.hasOwn(commands, commandName) ? commands[commandName] : undefined;
  if (!command) {
    const closest = closestName(commandName, Object.keys(commands));
    const hint = closest === undefined ? '' : ` (did you mean ${closest}?)`;
    const quoted = quoteBounded(commandName, MAXIMUM_QUOTED_LENGTH);
    writeError(`dar: unknown command "${quoted}"${hint}; run \`dar help\``);
    return EXIT_USAGE;
  }
  if (topic || rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelp(commandName, command));
    return EXIT_OK;
  }
  watchStdout();
  try {
    const run = await command.load();
    return await run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      writeError(`dar ${name}: ${error.message.replace(/^dar \S+: /, '')}`);
      return EXIT_USAGE;
    }
    // A reader that finds an event naming a message the store lost says what that means.
    writeError(`dar ${name}: ${describeStoreError(error)}`);
    return EXIT_FAILED;
  }
}
