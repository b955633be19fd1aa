import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Named so that the build can emit this module's declaration. */
type ParsedFlags<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/**
 * Strict flag parsing: an unknown flag, a missing value or a surplus argument is a
 * {@link UsageError} naming it.
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
    throw new UsageError(`dar ${command}: ${(error as Error).message}`);
  }
  const count = parsed.positionals.length;
  if (count < positionals.min || count > positionals.max) {
    throw new UsageError(`dar ${command}: expected ${positionals.names}, got ${count} argument(s)`);
  }
  return parsed;
}
