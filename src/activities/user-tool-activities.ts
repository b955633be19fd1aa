import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_ARGUMENTS_LENGTH,
  MAXIMUM_JOB_TOOL_DESCRIPTIONS_LENGTH,
  MAXIMUM_ERROR_TEXT_LENGTH,
  MAXIMUM_MODEL_SETUP_BYTES,
  messageOf,
  quoteBounded,
} from '../core/index.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import {
  ARGUMENT_SHIM_FAILURE,
  NO_TOOLS_HERE,
  TOOLS_TOO_LARGE,
} from '../tools/user/failure-types.js';
import { describeToolSpec, type DescribedTools } from '../tools/user/tool-description.js';

export interface PrepareToolArgumentsInput {
  toolName: string;
  rawArguments: unknown;
}

/**
 * The local activities through which a job learns the tools that are not in its workflow
 * bundle: their descriptions (once per run, at its start) and their argument shims (per call).
 * Both run on the worker that runs the workflow task, and history records their results.
 */
export function createUserToolActivities(tools: ReadonlyMap<string, ToolImplementation>) {
  return {
    /**
     * `systemPromptBytes`: the job's system prompt as JSON, in UTF-8 bytes (0 from runs that
     * recorded this answer before it was passed).
     */
    async describeTools(names: string[], systemPromptBytes = 0): Promise<DescribedTools> {
      const described: DescribedTools = { tools: [], unknown: [] };
      let length = 0;
      let bytes = 0;
      for (const name of names) {
        const tool = tools.get(name);
        if (!tool) {
          described.unknown.push(name);
          continue;
        }
        const description = describeToolSpec(tool.spec);
        const json = JSON.stringify(description);
        length += json.length;
        bytes += Buffer.byteLength(json, 'utf8');
        described.tools.push(description);
      }
      // Refused before history records it (a marker over the payload limit stops the job).
      if (length > MAXIMUM_JOB_TOOL_DESCRIPTIONS_LENGTH) {
        throw ApplicationFailure.nonRetryable(
          `The job's ${described.tools.length} worker tools are described in ${length} ` +
            `characters of JSON together, over the limit of ` +
            `${MAXIMUM_JOB_TOOL_DESCRIPTIONS_LENGTH}: give the job fewer tools, or shorter ` +
            'descriptions and schemas',
          TOOLS_TOO_LARGE,
        );
      }
      if (systemPromptBytes + bytes > MAXIMUM_MODEL_SETUP_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `The job's system prompt (${systemPromptBytes} bytes as JSON) and its ` +
            `${described.tools.length} worker tools' descriptions (${bytes} bytes) together ` +
            `pass the limit of ${MAXIMUM_MODEL_SETUP_BYTES} bytes that a run's first model call ` +
            'carries by value: shorten the system prompt (put large material in the workspace ' +
            'as a file) or give the job fewer tools',
          TOOLS_TOO_LARGE,
        );
      }
      return described;
    },

    async prepareToolArguments(input: PrepareToolArgumentsInput): Promise<unknown> {
      const shim = tools.get(input.toolName)?.spec.prepareArguments;
      if (!shim) return input.rawArguments;
      let shaped: unknown;
      try {
        shaped = await shim(input.rawArguments);
      } catch (error) {
        const message = quoteBounded(messageOf(error), MAXIMUM_ERROR_TEXT_LENGTH);
        throw ApplicationFailure.nonRetryable(message, ARGUMENT_SHIM_FAILURE);
      }
      // What the shim returns is recorded in history: the same bound as the model's arguments.
      const length = JSON.stringify(shaped ?? null).length;
      if (length > MAXIMUM_ARGUMENTS_LENGTH) {
        throw ApplicationFailure.nonRetryable(
          `The argument shim of ${input.toolName} returned ${length} characters of JSON, ` +
            `over the limit of ${MAXIMUM_ARGUMENTS_LENGTH}`,
          ARGUMENT_SHIM_FAILURE,
        );
      }
      return shaped ?? null;
    },
  };
}

/**
 * The same activities on a worker that runs no tools (it only answers queries): they fail for
 * another attempt, so the job's workflow task moves to a worker that has its tools.
 */
export function noUserToolActivities(): ReturnType<typeof createUserToolActivities> {
  const refuse = async (): Promise<never> => {
    throw ApplicationFailure.retryable('This worker runs no tools', NO_TOOLS_HERE);
  };
  return { describeTools: refuse, prepareToolArguments: refuse };
}
