import * as otel from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import type { Usage } from '../core/messages.js';
import {
  isModelCallLeftToPacing,
  MODEL_CALL_ACTIVITIES,
} from '../workflows/model-call-activities.js';

const TOOL_CALLS = new Set(['executeTool', 'executeToolWithStore']);

/** The span attributes the runner sets (OpenTelemetry's GenAI names where there is one). */
export const SPAN_ATTRIBUTES = {
  jobId: 'dar.job_id',
  model: 'gen_ai.request.model',
  provider: 'gen_ai.system',
  callIndex: 'dar.model_call_index',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'dar.usage.cache_read_tokens',
  cacheWriteTokens: 'dar.usage.cache_write_tokens',
  costUsd: 'dar.usage.cost_usd',
  stopReason: 'gen_ai.response.finish_reasons',
  tool: 'dar.tool',
  toolCallId: 'dar.tool_call_id',
  toolOutcome: 'dar.tool.outcome',
} as const;

interface ActivityArgument {
  jobId?: unknown;
  model?: unknown;
  callIndex?: unknown;
  toolName?: unknown;
  toolCallId?: unknown;
}

/**
 * Worker activity interceptor: a `model call` span for each model call activity (model, tokens,
 * cost) and a `tool call <name>` span for each tool body (tool, outcome: ok, error (an error
 * result) or failed (the body threw)). Placed after the OpenTelemetry activity interceptor, so
 * each span is a child of that activity's span, itself in the job's trace.
 */
export function agentSpansInterceptor(tracer: otel.Tracer) {
  return (context: Context): ActivityInterceptors => {
    const type = context.info.activityType;
    const isModelCall = MODEL_CALL_ACTIVITIES.has(type);
    if (!isModelCall && !TOOL_CALLS.has(type)) return {};
    return {
      inbound: {
        async execute(input, next) {
          const argument = (input.args[0] ?? {}) as ActivityArgument;
          const name = isModelCall ? 'model call' : `tool call ${String(argument.toolName)}`;
          return tracer.startActiveSpan(name, async (span) => {
            setStart(span, argument, isModelCall);
            try {
              const result = await next(input);
              // Left to the provider's queue: the call gets its own span where it is made.
              if (isModelCall && isModelCallLeftToPacing(result)) {
                span.updateName('model call left to pacing');
              } else if (isModelCall) setModelAnswer(span, result);
              else setToolOutcome(span, result);
              return result;
            } catch (error) {
              if (!isModelCall) span.setAttribute(SPAN_ATTRIBUTES.toolOutcome, 'failed');
              span.recordException(error as Error);
              span.setStatus({
                code: otel.SpanStatusCode.ERROR,
                message: (error as Error).message,
              });
              throw error;
            } finally {
              span.end();
            }
          });
        },
      },
    };
  };
}

function setStart(span: otel.Span, argument: ActivityArgument, isModelCall: boolean): void {
  if (typeof argument.jobId === 'string') span.setAttribute(SPAN_ATTRIBUTES.jobId, argument.jobId);
  if (isModelCall) {
    if (typeof argument.model === 'string') {
      span.setAttribute(SPAN_ATTRIBUTES.model, argument.model);
      span.setAttribute(SPAN_ATTRIBUTES.provider, argument.model.split(':')[0] ?? '');
    }
    if (typeof argument.callIndex === 'number') {
      span.setAttribute(SPAN_ATTRIBUTES.callIndex, argument.callIndex);
    }
    return;
  }
  if (typeof argument.toolName === 'string')
    span.setAttribute(SPAN_ATTRIBUTES.tool, argument.toolName);
  if (typeof argument.toolCallId === 'string') {
    span.setAttribute(SPAN_ATTRIBUTES.toolCallId, argument.toolCallId);
  }
}

function setModelAnswer(span: otel.Span, result: unknown): void {
  if (typeof result !== 'object' || result === null) return;
  const message = ('message' in result ? result.message : result) as
    { usage?: Usage; stopReason?: unknown } | undefined;
  const usage = message?.usage;
  if (usage) {
    span.setAttribute(SPAN_ATTRIBUTES.inputTokens, usage.input);
    span.setAttribute(SPAN_ATTRIBUTES.outputTokens, usage.output);
    span.setAttribute(SPAN_ATTRIBUTES.cacheReadTokens, usage.cacheRead);
    span.setAttribute(SPAN_ATTRIBUTES.cacheWriteTokens, usage.cacheWrite);
    span.setAttribute(SPAN_ATTRIBUTES.costUsd, usage.cost.total);
  }
  if (typeof message?.stopReason === 'string') {
    span.setAttribute(SPAN_ATTRIBUTES.stopReason, [message.stopReason]);
  }
}

function setToolOutcome(span: otel.Span, result: unknown): void {
  const isError = (result as { isError?: unknown } | null)?.isError === true;
  span.setAttribute(SPAN_ATTRIBUTES.toolOutcome, isError ? 'error' : 'ok');
}
