import type { ToolDescriptor } from '../core/index.js';

/**
 * What a model call is made with besides the transcript: the system prompt and the tools'
 * descriptors. The same for every call of a run, and often the largest part of a call's input
 * (the built-in tools' schemas are about 3 KB; a user's system prompt or MCP tools may be far
 * more), so a large one is stored once and the run's later calls name it by reference.
 */
export interface ModelSetup {
  systemPrompt: string;
  tools: ToolDescriptor[];
}

/**
 * A setup whose JSON has at least this many characters is stored by the call that first sends
 * it; a smaller one keeps riding in every call's input, where it costs less than a store write.
 */
export const SETUP_BY_REFERENCE_FROM_CHARACTERS = 1024;

/** Whether the setup is large enough to be stored and named by reference. */
export function worthStoring(setup: ModelSetup): boolean {
  return JSON.stringify(setup).length >= SETUP_BY_REFERENCE_FROM_CHARACTERS;
}

/** Whether a value read from the store has a setup's shape. */
export function isModelSetup(value: unknown): value is ModelSetup {
  if (typeof value !== 'object' || value === null) return false;
  const { systemPrompt, tools } = value as Partial<ModelSetup>;
  return (
    typeof systemPrompt === 'string' &&
    Array.isArray(tools) &&
    tools.every(
      (tool: unknown) =>
        typeof tool === 'object' &&
        tool !== null &&
        typeof (tool as ToolDescriptor).name === 'string' &&
        typeof (tool as ToolDescriptor).description === 'string',
    )
  );
}
