import { STOP_REASONS, type AssistantContent, type StopReason } from '../core/index.js';
import { UnreadableFileError, readSmallRegularFile } from './regular-file-sync.js';
import { isRecord } from './json-record.js';

/** One scripted model answer, as written in a script file. */
export interface ScriptedAnswer {
  content: AssistantContent[];
  stopReason: StopReason;
  errorMessage?: string;
  /** Milliseconds the answer takes to arrive (to demo and test long calls and cancellation). */
  delayMs?: number;
  /** Token counts and cost (USD) the answer reports; zero when left out. */
  usage?: ScriptedUsage;
}

export interface ScriptedUsage {
  input: number;
  output: number;
  costUsd: number;
}

const USAGE_FIELDS = ['input', 'output', 'costUsd'] as const;

function checkUsage(path: string, where: string, usage: unknown): ScriptedUsage {
  if (!isRecord(usage)) fail(path, where, '"usage" must be an object');
  const checked: ScriptedUsage = { input: 0, output: 0, costUsd: 0 };
  for (const [field, value] of Object.entries(usage)) {
    if (!(USAGE_FIELDS as readonly string[]).includes(field)) {
      fail(path, where, `"usage.${field}" is not known (${USAGE_FIELDS.join(', ')})`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      fail(path, where, `"usage.${field}" must be a non-negative number`);
    }
    checked[field as keyof ScriptedUsage] = value;
  }
  return checked;
}

function fail(path: string, where: string, problem: string): never {
  throw new Error(`Model script ${path}: ${where}: ${problem}`);
}

function checkBlock(path: string, where: string, block: unknown): AssistantContent {
  if (!isRecord(block)) fail(path, where, 'must be an object');
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') fail(path, where, 'a text block needs a string "text"');
      return { type: 'text', text: block.text };
    case 'thinking':
      if (typeof block.thinking !== 'string') {
        fail(path, where, 'a thinking block needs a string "thinking"');
      }
      return { type: 'thinking', thinking: block.thinking };
    case 'toolCall':
      if (typeof block.id !== 'string' || block.id === '') {
        fail(path, where, 'a toolCall block needs a non-empty string "id"');
      }
      if (typeof block.name !== 'string')
        fail(path, where, 'a toolCall block needs a string "name"');
      return { type: 'toolCall', id: block.id, name: block.name, arguments: block.arguments ?? {} };
    default:
      fail(
        path,
        where,
        `unknown block type ${JSON.stringify(block.type)} (text, thinking, toolCall)`,
      );
  }
}

function checkAnswer(path: string, index: number, answer: unknown): ScriptedAnswer {
  // Counted from 1, as model calls are: model call n gets answer n.
  const where = `answer ${index + 1}`;
  if (!isRecord(answer)) fail(path, where, 'must be an object');
  if (!Array.isArray(answer.content)) fail(path, where, '"content" must be an array of blocks');
  if (!STOP_REASONS.includes(answer.stopReason as StopReason)) {
    fail(path, where, `"stopReason" must be one of ${STOP_REASONS.join(', ')}`);
  }
  if (answer.errorMessage !== undefined && typeof answer.errorMessage !== 'string') {
    fail(path, where, '"errorMessage" must be a string');
  }
  if (
    answer.delayMs !== undefined &&
    (typeof answer.delayMs !== 'number' || !Number.isFinite(answer.delayMs) || answer.delayMs < 0)
  ) {
    fail(path, where, '"delayMs" must be a non-negative number');
  }
  const content = answer.content.map((block, blockIndex) =>
    checkBlock(path, `${where}, block ${blockIndex}`, block),
  );
  const checked: ScriptedAnswer = { content, stopReason: answer.stopReason as StopReason };
  if (typeof answer.errorMessage === 'string') checked.errorMessage = answer.errorMessage;
  if (typeof answer.delayMs === 'number') checked.delayMs = answer.delayMs;
  if (answer.usage !== undefined) checked.usage = checkUsage(path, where, answer.usage);
  return checked;
}

/** A model script larger than this is refused: a job names the file, and the worker reads it. */
export const MAXIMUM_MODEL_SCRIPT_BYTES = 64 * 1024 * 1024;

/**
 * The script's text. A job names the path and the worker reads it on its event loop: a pipe
 * with no writer would block every job of the worker for ever, and a device such as /dev/zero
 * would fill its memory, so only a regular file within the size limit is read.
 */
function readScriptFile(path: string): string {
  try {
    return readSmallRegularFile(path, MAXIMUM_MODEL_SCRIPT_BYTES);
  } catch (error) {
    if (error instanceof UnreadableFileError) {
      throw new Error(`Model script ${path}: ${error.message}`, { cause: error });
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`Model script ${path}: cannot be read (${code ?? String(error)})`, {
      cause: error,
    });
  }
}

/** Reads and checks a model script: a JSON array of answers. Throws a message naming the flaw. */
export function loadModelScript(path: string): ScriptedAnswer[] {
  const text = readScriptFile(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`Model script ${path}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (!Array.isArray(parsed)) fail(path, 'top level', 'must be an array of assistant answers');
  if (parsed.length === 0) {
    fail(path, 'top level', 'has no answers (model call 1 takes answer 1)');
  }
  return parsed.map((answer, index) => checkAnswer(path, index, answer));
}
