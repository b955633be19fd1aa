import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkPolicyLimits, parsePolicy } from '../policy/index.js';
import { parseModelName } from '../providers/model-provider.js';
import { loadModelScript } from '../providers/model-script.js';
import { baseUrlProblem, realProviderSpec } from '../providers/real-providers.js';
import { knownProviders } from '../providers/registry.js';
import { builtinToolSpecs } from '../tools/specs/index.js';
import type { CompactionSettings } from '../workflows/compaction-settings.js';
import type { JobBudget } from '../workflows/job-budget.js';
import { jobInputProblems } from '../workflows/job-input-schema.js';
import type { AgentJobInput } from '../workflows/job-types.js';
import { UsageError } from './usage-error.js';

export const DEFAULT_TOOLS = ['read', 'write', 'edit', 'ls', 'bash'];

/** The tool names of each loaded tool module, by absolute path. */
export type ToolModuleNames = ReadonlyMap<string, readonly string[]>;

/**
 * Whether an entry of a tool list (`--tools`, a batch line's `tools`) is a tool module's path
 * rather than a tool name: it has a slash or ends in `.js`, `.mjs` or `.cjs`.
 */
export function isToolModuleEntry(entry: string): boolean {
  return entry.includes('/') || /\.(c|m)?js$/.test(entry);
}

export interface JobFlags {
  prompt: string;
  model?: string | undefined;
  workspace?: string | undefined;
  tools?: string | undefined;
  policy?: string | undefined;
  toolExecution?: string | undefined;
  systemPrompt?: string | undefined;
  /** Checked by the input schema (positive numbers, known keys). */
  budget?: JobBudget | undefined;
  /** How long the job waits for a follow-up after each run (see `AgentJobInput.keepOpenMs`). */
  keepOpenMs?: number | undefined;
  /** Checked by the input schema (known keys, whole numbers). */
  compaction?: CompactionSettings | undefined;
}

/** `scripted:` paths become absolute (the worker may run elsewhere) after the script is checked. */
function checkModel(model: string, cwd: string): string {
  let name;
  try {
    name = parseModelName(model);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!knownProviders().includes(name.provider)) {
    throw new UsageError(
      `Unknown model provider "${name.provider}"; known: ${knownProviders().join(', ')}`,
    );
  }
  const real = realProviderSpec(name.provider);
  if (real) {
    // Keys are not checked here: they live on the worker, which may be another machine (R25).
    if (/\s/.test(name.id)) throw new UsageError(`Model id "${name.id}" contains whitespace`);
    const baseUrl = process.env[real.baseUrlVariable]?.trim();
    const problem = baseUrl ? baseUrlProblem(real.baseUrlVariable, baseUrl) : undefined;
    if (problem) throw new UsageError(problem);
    return model;
  }
  if (name.provider !== 'scripted') return model;
  const path = resolve(cwd, name.id);
  try {
    loadModelScript(path);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return `scripted:${path}`;
}

function checkWorkspace(workspace: string, cwd: string): string {
  const path = resolve(cwd, workspace);
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) throw new UsageError(`Workspace ${path} does not exist`);
  if (!stats.isDirectory()) throw new UsageError(`Workspace ${path} is not a folder`);
  return path;
}

/**
 * A tool list: built-in names, and module paths (see `isToolModuleEntry`) that stand for every
 * tool of the module, which the caller loaded (`moduleTools`: tool names by absolute path).
 */
function checkTools(
  list: string,
  cwd: string,
  moduleTools: ToolModuleNames,
  otherTools: readonly string[],
): string[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const known = [...Object.keys(builtinToolSpecs), ...otherTools];
  const names: string[] = [];
  const unknown: string[] = [];
  for (const entry of entries) {
    if (isToolModuleEntry(entry)) {
      const path = resolve(cwd, entry);
      const loaded = moduleTools.get(path);
      if (!loaded) throw new UsageError(`Tool module ${path} was not loaded`);
      names.push(...loaded);
    } else if (known.includes(entry)) {
      names.push(entry);
    } else {
      unknown.push(entry);
    }
  }
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown tool ${unknown.join(', ')} in --tools; known: ${known.join(', ')} ` +
        `(or a tool module: ./my-tools.js)`,
    );
  }
  return [...new Set(names)];
}

function checkPolicy(file: string, cwd: string): AgentJobInput['policy'] {
  const path = resolve(cwd, file);
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Policy file ${path} cannot be read (${(error as Error).message})`);
  }
  try {
    const policy = parsePolicy(JSON.parse(text));
    checkPolicyLimits(policy);
    return policy;
  } catch (error) {
    throw new UsageError(`Policy file ${path}: ${(error as Error).message}`);
  }
}

/**
 * Turns command-line flags into a job input, checking everything that can be checked before
 * anything starts: model script, workspace, tool names, policy file, budget. Tool modules named
 * in `flags.tools` must be loaded already (`moduleTools`); `otherTools` are more names a job may
 * list (the tools of MCP servers, `server__tool`).
 */
export function buildJobInput(
  flags: JobFlags,
  cwd = process.cwd(),
  moduleTools: ToolModuleNames = new Map(),
  otherTools: readonly string[] = [],
): AgentJobInput {
  if (flags.prompt.trim() === '') throw new UsageError('The prompt is empty');
  const toolExecution = flags.toolExecution ?? 'parallel';
  if (toolExecution !== 'parallel' && toolExecution !== 'sequential') {
    throw new UsageError(`--tool-execution must be parallel or sequential, not "${toolExecution}"`);
  }
  if (!flags.model) {
    throw new UsageError('--model is required (e.g. --model scripted:examples/demo-script.json)');
  }
  const input: AgentJobInput = {
    prompt: flags.prompt,
    model: checkModel(flags.model, cwd),
    workspace: checkWorkspace(flags.workspace ?? '.', cwd),
    tools: checkTools(flags.tools ?? DEFAULT_TOOLS.join(','), cwd, moduleTools, otherTools),
    toolExecution,
  };
  if (flags.policy) input.policy = checkPolicy(flags.policy, cwd);
  if (flags.systemPrompt) input.systemPrompt = flags.systemPrompt;
  if (flags.budget !== undefined) input.budget = flags.budget;
  if (flags.keepOpenMs !== undefined) input.keepOpenMs = flags.keepOpenMs;
  if (flags.compaction !== undefined) input.compaction = flags.compaction;
  // The same schema the workflow checks at entry: what passes here is never rejected there.
  const problems = jobInputProblems(input);
  if (problems.length > 0) throw new UsageError(`Bad job input: ${problems.join('; ')}`);
  return input;
}
