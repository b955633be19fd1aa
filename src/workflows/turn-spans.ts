import * as otel from '@opentelemetry/api';
import type {
  ActivityInput,
  Next,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { MODEL_CALL_ACTIVITIES } from './model-call-activities.js';

/** The activities that start a turn: the model call. */

/**
 * One span per turn, `turn <n>`, the parent of that turn's model call and tool calls: a turn
 * starts when its model call is scheduled and ends when the next one is, or with the run.
 * Workflow interceptors, bundled before OpenTelemetry's (so the activity spans those create
 * find the turn as their parent). Spans are not commands: histories replay unchanged.
 */
class TurnSpans {
  private span: otel.Span | undefined;
  private context: otel.Context | undefined;
  private turn: number | undefined;

  start(input: ActivityInput): void {
    const argument = (input.args[0] ?? {}) as { callIndex?: unknown; jobId?: unknown };
    const turn = typeof argument.callIndex === 'number' ? argument.callIndex + 1 : undefined;
    // The same call again (a first call its worker left to the provider's queue): same turn.
    if (turn !== undefined && this.span && turn === this.turn) return;
    this.end();
    this.turn = turn;
    const parent = otel.context.active();
    this.span = otel.trace
      .getTracer('durable-agent-runner')
      .startSpan(turn === undefined ? 'turn' : `turn ${turn}`, {}, parent);
    if (turn !== undefined) this.span.setAttribute('dar.turn', turn);
    if (typeof argument.jobId === 'string') this.span.setAttribute('dar.job_id', argument.jobId);
    this.context = otel.trace.setSpan(parent, this.span);
  }

  /** Runs `schedule` with the current turn as the active span, when a turn has started. */
  within<T>(schedule: () => T): T {
    return this.context ? otel.context.with(this.context, schedule) : schedule();
  }

  end(): void {
    this.span?.end();
    this.span = undefined;
    this.context = undefined;
    this.turn = undefined;
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const turns = new TurnSpans();
  const inbound: WorkflowInboundCallsInterceptor = {
    async execute(
      input: WorkflowExecuteInput,
      next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
    ) {
      try {
        return await next(input);
      } finally {
        turns.end();
      }
    },
  };
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity(
      input: ActivityInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
    ) {
      if (MODEL_CALL_ACTIVITIES.has(input.activityType)) turns.start(input);
      return turns.within(() => next(input));
    },
  };
  return { inbound: [inbound], outbound: [outbound] };
};
