import type { AssistantMessage, ModelRequest } from '../../../src/core/index.js';

/**
 * A model that answers from a script, one message per call, and records a deep copy of every
 * request it received. Running past the end of the script fails the test loudly.
 */
export interface ScriptedModel {
  callModel(request: ModelRequest): Promise<AssistantMessage>;
  requests: ModelRequest[];
}

export function scriptedModel(
  answers: (AssistantMessage | ((request: ModelRequest) => AssistantMessage))[],
): ScriptedModel {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async callModel(request) {
      requests.push(structuredClone(request));
      const answer = answers[requests.length - 1];
      if (!answer) throw new Error(`scripted model: no answer for call ${requests.length}`);
      return structuredClone(typeof answer === 'function' ? answer(request) : answer);
    },
  };
}
