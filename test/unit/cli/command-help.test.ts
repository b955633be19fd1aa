import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandHelp } from '../../../src/cli/command-help.js';
import { commands, type CommandEntry } from '../../../src/cli/command-table.js';
import { modelRateOption } from '../../../src/cli/model-rate-flag.js';

const commandsFolder = fileURLToPath(new URL('../../../src/cli/commands', import.meta.url));

function flagNames(text: string): string[] {
  return [...new Set(text.match(/--[a-z][a-z-]*/g) ?? [])].sort();
}

function describedFlags(entry: CommandEntry): string[] {
  return flagNames(entry.options.map(([flag]) => flag).join(' '));
}

const table = Object.entries(commands);

describe.each(table)('dar %s', (name, entry) => {
  test('every flag of the usage line is described', () => {
    expect(describedFlags(entry)).toEqual(expect.arrayContaining(flagNames(entry.usage)));
  });

  test('every described flag or positional is in the usage line, as written there', () => {
    expect(flagNames(entry.usage)).toEqual(expect.arrayContaining(describedFlags(entry)));
    for (const [flag] of entry.options) expect(entry.usage).toContain(flag);
  });

  test('the summary and the descriptions are one short line each', () => {
    expect(entry.summary.trim()).not.toBe('');
    expect(entry.summary).not.toContain('\n');
    for (const [flag, description] of entry.options) {
      expect(description.trim()).not.toBe('');
      expect(description).not.toContain('\n');
      expect(`${flag} ${description.length}`).toBe(`${flag} ${Math.min(description.length, 90)}`);
    }
  });

  test('the usage line names the command', () => {
    expect(entry.usage.startsWith(`dar ${name}`)).toBe(true);
  });
});

test('the help of dar run has its usage, its summary and a row per flag', () => {
  const run = commands.run;
  if (!run) throw new Error('no run command');
  const help = commandHelp('run', run);
  const lines = help.split('\n');
  expect(help.startsWith('usage: dar run')).toBe(true);
  expect(lines[2]).toBe(run.summary);
  expect(lines).toContain('options:');
  expect(help).toMatch(/^ {2}--max-turns N +Budget: at most N turns/m);
  // Rows align: every short flag's description starts in the same column.
  const maxTurnsRow = lines.find((line) => line.startsWith('  --max-turns N'));
  const workspaceRow = lines.find((line) => line.startsWith('  --workspace DIR'));
  expect(maxTurnsRow?.search(/ {2}Budget/)).toBe(workspaceRow?.search(/ {2}The folder/));
});

test('a flag too long for the column has its description on the next line', () => {
  const entry: CommandEntry = {
    usage: 'dar sample [--short] [--a-very-long-flag-name VALUE|OTHER-VALUE]',
    summary: 'A sample command.',
    options: [
      ['--short', 'A short flag'],
      ['--a-very-long-flag-name VALUE|OTHER-VALUE', 'A long flag'],
    ],
    load: () => Promise.reject(new Error('not run')),
  };
  expect(commandHelp('sample', entry).split('\n')).toEqual([
    'usage: dar sample [--short] [--a-very-long-flag-name VALUE|OTHER-VALUE]',
    '',
    'A sample command.',
    '',
    'options:',
    '  --short  A short flag',
    '  --a-very-long-flag-name VALUE|OTHER-VALUE',
    '           A long flag',
  ]);
});

/**
 * The long options each command's `parseFlags(...)` call accepts, read from the command modules'
 * source (importing them would load the worker and the Temporal client).
 */
function parserOptionsByCommand(): Map<string, string[]> {
  // Commands whose name is a parameter of the function that parses their flags.
  const namesOfParameters: Record<string, string[]> = {
    'control.ts:kind': ['steer', 'follow-up'],
    'approvals.ts:decision': ['approve', 'deny'],
  };
  const spreads: Record<string, string[]> = { modelRateOption: Object.keys(modelRateOption) };
  const found = new Map<string, string[]>();
  for (const file of readdirSync(commandsFolder).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(join(commandsFolder, file), 'utf8');
    for (const call of source.split('parseFlags(').slice(1)) {
      const options = call.slice(0, call.indexOf('{ min:'));
      const first = /^\s*(?:'([a-z-]+)'|([A-Za-z]+))\s*,/.exec(options);
      const names = first?.[1] ? [first[1]] : namesOfParameters[`${file}:${first?.[2] ?? ''}`];
      if (!names) throw new Error(`${file}: cannot tell which command a parseFlags call parses`);
      const keys = [...options.matchAll(/'?([a-z][a-z-]*)'?\s*:\s*\{\s*type:/g)].map(
        (match) => `--${match[1] ?? ''}`,
      );
      for (const [, spread] of options.matchAll(/\.\.\.([A-Za-z]+)/g)) {
        const spreadKeys = spreads[spread ?? ''];
        if (!spreadKeys) throw new Error(`${file}: unknown options spread ...${spread ?? ''}`);
        keys.push(...spreadKeys.map((key) => `--${key}`));
      }
      for (const name of names) found.set(name, [...new Set(keys)].sort());
    }
  }
  return found;
}

describe('the usage lines and the parsers agree', () => {
  const parsed = parserOptionsByCommand();

  test('every command of the table has a parser', () => {
    expect([...parsed.keys()].sort()).toEqual(Object.keys(commands).sort());
  });

  test.each(table)('dar %s: the same long options', (name, entry) => {
    expect(flagNames(entry.usage)).toEqual(parsed.get(name));
    expect(describedFlags(entry)).toEqual(parsed.get(name));
  });
});
