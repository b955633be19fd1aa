import type { ToolExecutionResult } from '../../../src/core/index.js';
import { deferred, type Deferred } from './deferred.js';
import type { ToolBody } from './harness.js';
import { text } from './messages.js';

/**
 * Tool bodies that wait for the test: each call id gets a deferred result; `started` and
 * `finished` record the order in which bodies began and ended.
 */
export interface GatedBodies {
  body: ToolBody;
  started: string[];
  finished: string[];
  release(id: string): void;
  fail(id: string, error: unknown): void;
}

export function gatedBodies(): GatedBodies {
  const gates = new Map<string, Deferred<ToolExecutionResult>>();
  const gate = (id: string) => {
    let entry = gates.get(id);
    if (!entry) {
      entry = deferred<ToolExecutionResult>();
      gates.set(id, entry);
    }
    return entry;
  };
  const started: string[] = [];
  const finished: string[] = [];
  return {
    started,
    finished,
    async body(call) {
      const id = call.toolCall.id;
      started.push(id);
      try {
        return await gate(id).promise;
      } finally {
        finished.push(id);
      }
    },
    release: (id) => gate(id).resolve({ content: [text(`done ${id}`)], details: { id } }),
    fail: (id, error) => gate(id).reject(error),
  };
}
