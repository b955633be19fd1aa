/**
 * Tools written the way a Pi user writes them: `AgentTool` objects of `@mariozechner/pi-agent-core`
 * with a `typebox` schema, nothing of this runner imported.
 */
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { Type } from 'typebox';

/** What the tools did, in order, in this process (the test's worker runs here). */
export const piToolLog: string[] = [];

const greetParameters = Type.Object({ name: Type.String() });

/** Sequential, with a shim that lifts the legacy `{ who }` arguments into `{ name }`. */
export const greetTool: AgentTool<typeof greetParameters> = {
  name: 'greet',
  label: 'Greet',
  description: 'Greets someone by name.',
  parameters: greetParameters,
  executionMode: 'sequential',
  prepareArguments(args) {
    const raw = args as { who?: unknown; name?: unknown };
    if (raw.who === 'nobody') throw new Error('greet needs somebody to greet');
    return (raw.who === undefined ? raw : { name: raw.who }) as { name: string };
  },
  async execute(toolCallId, params, _signal, onUpdate) {
    piToolLog.push(`start ${toolCallId}`);
    onUpdate?.({ content: [{ type: 'text', text: 'warming up' }], details: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    piToolLog.push(`end ${toolCallId}`);
    return {
      content: [{ type: 'text', text: `Hello, ${params.name}!` }],
      details: { greeted: params.name },
    };
  },
};

const waitParameters = Type.Object({ seconds: Type.Number() });

/** Waits, or until its signal aborts; says which. */
export const waitTool: AgentTool<typeof waitParameters> = {
  name: 'wait',
  label: 'Wait',
  description: 'Waits for a number of seconds.',
  parameters: waitParameters,
  async execute(toolCallId, params, signal) {
    piToolLog.push(`waiting ${toolCallId}`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, params.seconds * 1000);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        piToolLog.push(`aborted ${toolCallId}`);
        reject(new Error('aborted'));
      });
    });
    return { content: [{ type: 'text', text: 'waited' }], details: {} };
  },
};

const countParameters = Type.Object({ to: Type.Integer() });

/**
 * Reports its count so far through `onUpdate` (Pi's partial result: the whole text so far) as
 * it counts, and once more after it has returned (a late update, which Pi ignores).
 */
export const countTool: AgentTool<typeof countParameters> = {
  name: 'count',
  label: 'Count',
  description: 'Counts up to a number, slowly.',
  parameters: countParameters,
  async execute(_toolCallId, params, _signal, onUpdate) {
    const counted: string[] = [];
    for (let number = 1; number <= params.to; number += 1) {
      counted.push(`n${number}`);
      onUpdate?.({ content: [{ type: 'text', text: counted.join(' ') }], details: {} });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    setTimeout(() => {
      onUpdate?.({ content: [{ type: 'text', text: 'late update' }], details: {} });
    }, 50);
    return { content: [{ type: 'text', text: `counted to ${params.to}` }], details: {} };
  },
};
