import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import type { AssistantMessage } from '../core/messages.js';
import type { AgentMetrics } from './agent-metrics.js';
import {
  isModelCallLeftToPacing,
  MODEL_CALL_ACTIVITIES,
} from '../workflows/model-call-activities.js';

const TOOL_CALLS = new Set(['executeTool', 'executeToolWithStore']);

interface ModelCallArguments {
  model?: unknown;
}
interface ToolCallArguments {
  toolName?: unknown;
}

/**
 * Worker activity interceptor feeding {@link AgentMetrics}: the latency, tokens and cost of each
 * model call activity and the outcome of each tool body. Changes nothing the activities do.
 */
export function metricsActivityInterceptor(metrics: AgentMetrics) {
  return (context: Context): ActivityInterceptors => {
    const type = context.info.activityType;
    if (!MODEL_CALL_ACTIVITIES.has(type) && !TOOL_CALLS.has(type)) return {};
    return {
      inbound: {
        async execute(input, next) {
          const argument = (input.args[0] ?? {}) as ModelCallArguments & ToolCallArguments;
          const started = performance.now();
          let result: unknown;
          try {
            result = await next(input);
          } catch (error) {
            record(type, argument, (performance.now() - started) / 1000, undefined);
            throw error;
          }
          record(type, argument, (performance.now() - started) / 1000, result);
          return result;
        },
      },
    };
  };

  function record(
    type: string,
    argument: ModelCallArguments & ToolCallArguments,
    seconds: number,
    result: unknown,
  ): void {
    if (MODEL_CALL_ACTIVITIES.has(type)) {
      // Left to the provider's queue: the call is counted where it is made.
      if (isModelCallLeftToPacing(result)) return;
      const model = typeof argument.model === 'string' ? argument.model : 'unknown';
      const message = answerOf(result);
      metrics.observeModelCall({ model, seconds, ...(message ? { usage: message.usage } : {}) });
      return;
    }
    const tool = typeof argument.toolName === 'string' ? argument.toolName : 'unknown';
    const failed = result === undefined || (result as { isError?: unknown }).isError === true;
    metrics.observeToolCall(tool, failed);
  }
}

/** The assistant message of a model call's result (`callModel` returns it, `callModelWithStore` wraps it). */
function answerOf(result: unknown): AssistantMessage | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const message = 'message' in result ? result.message : result;
  const usage = (message as { usage?: unknown } | null)?.usage;
  return typeof usage === 'object' && usage !== null ? (message as AssistantMessage) : undefined;
}
