import type { JobStore } from '../store/job-store.js';
import type { ToolExecutionContext } from '../tools/tool-implementation.js';
import { LivePublisher, boundedTail, withoutKeys } from './live-publisher.js';

export interface LiveToolCall {
  /** The body's `onUpdate`: its new output goes to the live stream, batched and bounded. */
  onUpdate: NonNullable<ToolExecutionContext['onUpdate']>;
  /** Writes what waits (briefly); never rejects. */
  finish(): Promise<void>;
}

/** The live side of one tool body attempt: `tool_execution_update` events. */
export function openLiveToolCall(
  store: JobStore,
  call: { jobId: string; toolCallId: string; toolName: string; turn?: number },
  attempt: number,
  onFailure: (error: unknown) => void,
): LiveToolCall {
  const publisher = new LivePublisher({
    store,
    jobId: call.jobId,
    onFailure,
    scrub: withoutKeys,
  });
  return {
    onUpdate(partialResult, options) {
      const text = partialResult.content.map((block) => block.text).join('');
      const whole = options?.whole === true;
      if (text === '' && !whole) return;
      publisher.publish({
        type: 'tool_execution_update',
        ...(call.turn === undefined ? {} : { turn: call.turn }),
        attempt,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        partialResult: { content: [{ type: 'text', text: boundedTail(text) }] },
        ...(whole ? { whole: true as const } : {}),
      });
    },
    finish: () => publisher.close(),
  };
}
