import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Usage } from '../core/messages.js';

const ENDED_JOBS_REMEMBERED = 10_000;

/** One finished model call, as the metrics count it. */
export interface ModelCallObservation {
  /** `provider:model-id` as the job names it. */
  model: string;
  seconds: number;
  /** Undefined for a call that failed. */
  usage?: Usage;
}

/**
 * The runner's own Prometheus metrics of one worker process (names start with `dar_`): jobs by
 * phase, turns, model call latency, tokens and cost by model, tool failures. They count what
 * this process saw: sum them over workers in Prometheus.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly jobs = new Gauge({
    name: 'dar_jobs',
    help: 'Jobs this worker last saw in each phase (starting, model, tools, approval, waiting); ended jobs are in dar_jobs_ended_total',
    labelNames: ['phase'],
    registers: [this.registry],
  });
  private readonly jobsEnded = new Counter({
    name: 'dar_jobs_ended_total',
    help: 'Jobs this worker saw reach the done phase',
    registers: [this.registry],
  });
  private readonly turns = new Counter({
    name: 'dar_turns_total',
    help: 'Turns (model answer and its tool calls) finished by jobs on this worker',
    registers: [this.registry],
  });
  private readonly modelCallSeconds = new Histogram({
    name: 'dar_model_call_duration_seconds',
    help: 'Model call latency, by model and outcome (ok or error)',
    labelNames: ['model', 'outcome'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'dar_model_tokens_total',
    help: 'Tokens the models reported, by model and kind (input, output, cache_read, cache_write)',
    labelNames: ['model', 'kind'],
    registers: [this.registry],
  });
  private readonly cost = new Counter({
    name: 'dar_model_cost_usd_total',
    help: 'Cost in US dollars the models reported, by model',
    labelNames: ['model'],
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'dar_tool_calls_total',
    help: 'Tool bodies run, by tool and outcome (ok or failed)',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly toolFailures = new Counter({
    name: 'dar_tool_failures_total',
    help: 'Tool bodies that failed (threw), by tool',
    labelNames: ['tool'],
    registers: [this.registry],
  });
  /** Each running job's last phase and turn count. */
  private readonly known = new Map<string, { phase: string; turns: number }>();
  /** The jobs that ended lately. */
  private readonly ended = new Set<string>();

  observeModelCall(observation: ModelCallObservation): void {
    const { model, usage } = observation;
    this.modelCallSeconds.observe({ model, outcome: usage ? 'ok' : 'error' }, observation.seconds);
    if (!usage) return;
    this.tokens.inc({ model, kind: 'input' }, usage.input);
    this.tokens.inc({ model, kind: 'output' }, usage.output);
    this.tokens.inc({ model, kind: 'cache_read' }, usage.cacheRead);
    this.tokens.inc({ model, kind: 'cache_write' }, usage.cacheWrite);
    this.cost.inc({ model }, usage.cost.total);
  }

  observeToolCall(tool: string, failed: boolean): void {
    this.toolCalls.inc({ tool, outcome: failed ? 'failed' : 'ok' });
    if (failed) this.toolFailures.inc({ tool });
  }

  /**
   * A job's status as its progress is written. Written again and again with the same values
   * (the workflow repeats its writes): only changes count.
   */
  observeJobStatus(jobId: string, phase: string, turns: number): void {
    if (this.ended.has(jobId)) return;
    const before = this.known.get(jobId);
    const turnsBefore = before?.turns ?? 0;
    if (turns > turnsBefore) this.turns.inc(turns - turnsBefore);
    if (before?.phase !== phase) {
      if (before) this.jobs.dec({ phase: before.phase });
      if (phase !== 'done') this.jobs.inc({ phase });
    }
    if (phase !== 'done') {
      this.known.set(jobId, { phase, turns: Math.max(turnsBefore, turns) });
      return;
    }
    this.known.delete(jobId);
    this.jobsEnded.inc();
    this.ended.add(jobId);
    // Remembered only to ignore the repeated writes of the last status: the oldest go first.
    if (this.ended.size > ENDED_JOBS_REMEMBERED) {
      const oldest = this.ended.values().next().value;
      if (oldest !== undefined) this.ended.delete(oldest);
    }
  }

  /** The exposition text (Prometheus text format). */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
