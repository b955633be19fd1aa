import type { CommandEntry } from './command-table.js';

/** Flags longer than this get their description on the next line, so the rest stay aligned. */
const WIDEST_FLAG_COLUMN = 28;

/**
 * `dar help CMD` (`dar CMD --help`): the usage line, what the command does, and one row per flag
 * or positional with what it does.
 */
export function commandHelp(name: string, entry: CommandEntry): string {
  const lines = [`usage: ${entry.usage}`, '', entry.summary, ''];
  if (entry.options.length === 0) {
    lines.push(`dar ${name} takes no options.`);
    return lines.join('\n');
  }
  const column = Math.max(
    0,
    ...entry.options.map(([flag]) => flag.length).filter((length) => length <= WIDEST_FLAG_COLUMN),
  );
  lines.push('options:');
  for (const [flag, description] of entry.options) {
    if (flag.length > column) lines.push(`  ${flag}`, `  ${' '.repeat(column)}  ${description}`);
    else lines.push(`  ${flag.padEnd(column)}  ${description}`);
  }
  return lines.join('\n');
}
