import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { Message, ModelRequest } from '../../../src/core/index.js';
import { scriptedRequestsFolder } from '../../../src/providers/scripted-provider.js';
import { text, toolCall } from '../../support/agent-harness.js';

/** Makes the scripted model behind `model` record what each call is sent. */
export function recordRequests(model: string): void {
  mkdirSync(scriptedRequestsFolder(model.slice('scripted:'.length)));
}

/** What model call `index` of the job was sent (recorded by the scripted model). */
export function sentRequest(model: string, index: number): ModelRequest {
  const folder = scriptedRequestsFolder(model.slice('scripted:'.length));
  return JSON.parse(readFileSync(`${folder}/${index}.json`, 'utf8')) as ModelRequest;
}

export function recordedCalls(model: string): number {
  return readdirSync(scriptedRequestsFolder(model.slice('scripted:'.length))).length;
}

/**
 * A turn that runs bash printing `characters` x's (about characters / 4 tokens of result) and
 * reports `inputTokens` of prompt in its usage, the figure the job compacts on.
 */
export function bashTurn(id: string, characters: number, inputTokens: number) {
  return {
    stopReason: 'toolUse' as const,
    content: [
      text(`turn ${id}`),
      toolCall(id, 'bash', { command: `head -c ${characters} /dev/zero | tr '\\0' x` }),
    ],
    usage: { input: inputTokens, output: 10, costUsd: 0 },
  };
}

/** The summariser's answer. */
export function summaryAnswer(summary: string) {
  return {
    stopReason: 'stop' as const,
    content: [text(summary)],
    usage: { input: 500, output: 40, costUsd: 0.001 },
  };
}

/** The tool call ids of the assistant messages in `messages`, in order. */
export function callIds(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'assistant'
      ? message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []))
      : [],
  );
}

/** The ids of the tool calls answered in `messages`, in order. */
export function resultIds(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => (message.role === 'toolResult' ? [message.toolCallId] : []));
}
