import { dirname, resolve } from 'node:path';
import { MAXIMUM_ERROR_TEXT_LENGTH, quoteBounded } from '../core/index.js';
import {
  buildJobInput,
  isToolModuleEntry,
  type ToolModuleNames,
} from '../job-input/build-job-input.js';
import {
  DEFAULT_PAYLOAD_LIMIT_BYTES,
  jsonBytes,
  PAYLOAD_HEADROOM_BYTES,
  PayloadTooLargeError,
} from '../client/payload-limit.js';
import { UsageError } from '../job-input/usage-error.js';
import type { CompactionSettings } from '../workflows/compaction-settings.js';
import type { JobBudget } from '../workflows/job-budget.js';
import type { AgentJobInput } from '../workflows/job-types.js';

/** One line of a batch file, checked and turned into a job input. */
export interface BatchTask {
  /** The line's `id`, or its line number. Unique within the file. */
  id: string;
  /** 1-based line number in the file. */
  line: number;
  input: AgentJobInput;
}

/** What a line may leave out, from the command line. */
export interface TaskDefaults {
  /** `--model`, already resolved (a `scripted:` path absolute). */
  model?: string | undefined;
}

const FIELDS = ['id', 'prompt', 'workspace', 'model', 'tools', 'policy', 'budget', 'compaction'];

/** Task ids become part of workflow ids: short, and free of spaces and quotes. */
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A line's problem, thrown and collected with its line number. */
class LineError extends Error {}

/**
 * Bad lines listed in the error, at most: a file of a million bad lines (the wrong file, say)
 * gets a short answer with the count, not a million lines of output.
 */
export const MAXIMUM_LISTED_BAD_LINES = 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(task: Record<string, unknown>, field: string): string | undefined {
  const value = task[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new LineError(`"${field}" must be a string`);
  return value;
}

function taskId(task: Record<string, unknown>, line: number): string {
  const id = task.id;
  if (id === undefined) return String(line);
  const text = typeof id === 'number' && Number.isInteger(id) ? String(id) : id;
  if (typeof text !== 'string' || !TASK_ID.test(text)) {
    throw new LineError(
      '"id" must be a string of letters, digits and . _ : - (at most 128, starting with a letter or digit)',
    );
  }
  return text;
}

function toolList(task: Record<string, unknown>): string | undefined {
  const tools = task.tools;
  if (tools === undefined || typeof tools === 'string') return tools;
  if (Array.isArray(tools) && tools.every((name) => typeof name === 'string')) {
    return tools.join(',');
  }
  throw new LineError('"tools" must be an array of tool names (or "read,write,...")');
}

/** A line's `budget`: an object whose keys and values the job input schema checks. */
function budgetOf(task: Record<string, unknown>): JobBudget | undefined {
  const budget = task.budget;
  if (budget === undefined) return undefined;
  if (!isRecord(budget)) {
    throw new LineError(
      '"budget" must be an object (maxTurns, maxTokens, maxCostUsd, maxWallTimeMs)',
    );
  }
  return budget;
}

/** A line's `compaction`: an object whose keys and values the job input schema checks. */
function compactionOf(task: Record<string, unknown>): CompactionSettings | undefined {
  const compaction = task.compaction;
  if (compaction === undefined) return undefined;
  if (!isRecord(compaction)) {
    throw new LineError(
      '"compaction" must be an object (enabled, contextWindow, reserveTokens, keepRecentTokens)',
    );
  }
  return compaction;
}

/** Checks one line the way `dar run` checks its flags; relative paths are the file's folder's. */
function parseLine(
  text: string,
  line: number,
  folder: string,
  defaults: TaskDefaults,
  moduleTools: ToolModuleNames,
): BatchTask {
  let task: unknown;
  try {
    task = JSON.parse(text);
  } catch (error) {
    throw new LineError(`not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(task)) throw new LineError('must be a JSON object');
  const unknown = Object.keys(task).filter((field) => !FIELDS.includes(field));
  if (unknown.length > 0) {
    throw new LineError(`unknown field ${unknown.join(', ')} (known: ${FIELDS.join(', ')})`);
  }
  if (typeof task.prompt !== 'string') throw new LineError('"prompt" must be a string');
  const id = taskId(task, line);
  const model = optionalString(task, 'model') ?? defaults.model;
  if (model === undefined) throw new LineError('no "model" here and no --model for the batch');
  try {
    const input = buildJobInput(
      {
        prompt: task.prompt,
        model,
        workspace: optionalString(task, 'workspace'),
        tools: toolList(task),
        policy: optionalString(task, 'policy'),
        budget: budgetOf(task),
        compaction: compactionOf(task),
      },
      folder,
      moduleTools,
    );
    // Refused here, before anything starts, rather than by the server half-way through the batch.
    const bytes = jsonBytes(input);
    if (bytes > DEFAULT_PAYLOAD_LIMIT_BYTES - PAYLOAD_HEADROOM_BYTES) {
      throw new LineError(new PayloadTooLargeError("The job's input", bytes).message);
    }
    return { id, line, input };
  } catch (error) {
    if (error instanceof UsageError) throw new LineError(error.message);
    throw error;
  }
}

/**
 * Reads a batch file (JSON Lines: one task object a line; blank lines are skipped) and checks
 * every line before anything starts. Throws one {@link UsageError} listing each bad line with its
 * number, so a batch with a single bad line does not start at all.
 */
export function parseBatchFile(
  path: string,
  text: string,
  defaults: TaskDefaults,
  moduleTools: ToolModuleNames = new Map(),
): BatchTask[] {
  const folder = dirname(path);
  const tasks: BatchTask[] = [];
  const problems: string[] = [];
  let badLines = 0;
  const lineOfId = new Map<string, number>();
  text.split(/\r?\n/).forEach((content, index) => {
    const line = index + 1;
    if (content.trim() === '') return;
    try {
      const task = parseLine(content, line, folder, defaults, moduleTools);
      const earlier = lineOfId.get(task.id);
      if (earlier !== undefined) {
        throw new LineError(`task id "${task.id}" is already used on line ${earlier}`);
      }
      lineOfId.set(task.id, line);
      tasks.push(task);
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      badLines += 1;
      if (problems.length < MAXIMUM_LISTED_BAD_LINES) {
        // A line's text can be any size, and some messages quote it (its unknown fields).
        problems.push(
          `${path} line ${line}: ${quoteBounded(error.message, MAXIMUM_ERROR_TEXT_LENGTH)}`,
        );
      }
    }
  });
  if (badLines > 0) {
    const count = badLines === 1 ? 'a bad line' : `${badLines} bad lines`;
    const unlisted = badLines - problems.length;
    const more =
      unlisted > 0
        ? [`... and ${unlisted} more bad lines (the first ${problems.length} are listed)`]
        : [];
    throw new UsageError(`${count}, nothing started:\n${[...problems, ...more].join('\n')}`);
  }
  if (tasks.length === 0) throw new UsageError(`${path} holds no task`);
  return tasks;
}

/**
 * The tool modules the lines name in `tools` (absolute paths, relative ones being the file's
 * folder's), to load before the file is parsed. Lines that are not JSON are skipped here: the
 * parse reports them.
 */
export function toolModulesOfBatchFile(path: string, text: string): string[] {
  const folder = dirname(path);
  const paths = new Set<string>();
  for (const content of text.split(/\r?\n/)) {
    let task: unknown;
    try {
      task = JSON.parse(content);
    } catch {
      continue;
    }
    if (!isRecord(task)) continue;
    const list = Array.isArray(task.tools)
      ? task.tools
      : typeof task.tools === 'string'
        ? task.tools.split(',')
        : [];
    for (const entry of list) {
      if (typeof entry === 'string' && isToolModuleEntry(entry.trim())) {
        paths.add(resolve(folder, entry.trim()));
      }
    }
  }
  return [...paths];
}
