import { parseArgs, type ParseArgsConfig } from 'node:util';
import { unknownFlagMessage } from './unknown-flag.js';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed flags, named so that declaration files can say what `parseFlags` returns. */
export type ParsedFlags<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/**
 * Strict flag parsing: an unknown flag, a missing value or a surplus argument is a
 * {@link UsageError} naming it (an unknown flag with the closest known one, see
 * `unknownFlagMessage`).
 */
export function parseFlags<T extends Options>(
  command: string,
  argv: string[],
  options: T,
  positionals: { min: number; max: number; names: string },
): ParsedFlags<T> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
    if (unknown !== undefined) throw new UsageError(unknownFlagMessage(command, unknown, options));
    throw new UsageError(`dar ${command}: ${(error as Error).message}`);
  }
  const count = parsed.positionals.length;
  if (count < positionals.min || count > positionals.max) {
    throw new UsageError(`dar ${command}: expected ${positionals.names}, got ${count} argument(s)`);
  }
  return parsed;
}
