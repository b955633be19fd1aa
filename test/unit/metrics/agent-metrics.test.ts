import { AgentMetrics } from '../../../src/metrics/agent-metrics.js';

async function value(metrics: AgentMetrics, name: string, labels: Record<string, string> = {}) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const found = metric?.values.find((sample) =>
    Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  );
  return found?.value ?? 0;
}

test('job statuses written again and again count once: phases move, turns add up, an ended job ends once', async () => {
  const metrics = new AgentMetrics();
  metrics.observeJobStatus('a', 'model', 0);
  metrics.observeJobStatus('a', 'model', 0);
  metrics.observeJobStatus('b', 'model', 0);
  expect(await value(metrics, 'dar_jobs', { phase: 'model' })).toBe(2);
  metrics.observeJobStatus('a', 'tools', 1);
  metrics.observeJobStatus('a', 'tools', 1);
  expect(await value(metrics, 'dar_jobs', { phase: 'model' })).toBe(1);
  expect(await value(metrics, 'dar_jobs', { phase: 'tools' })).toBe(1);
  metrics.observeJobStatus('a', 'done', 2);
  metrics.observeJobStatus('a', 'done', 2); // the durable write repeats the last status
  expect(await value(metrics, 'dar_jobs', { phase: 'tools' })).toBe(0);
  expect(await value(metrics, 'dar_jobs_ended_total')).toBe(1);
  expect(await value(metrics, 'dar_turns_total')).toBe(2);
});

test('model calls add tokens and cost by model; failed calls count latency only; tool failures by tool', async () => {
  const metrics = new AgentMetrics();
  const usage = (input: number, output: number, total: number) => ({
    input,
    output,
    cacheRead: 1,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
  });
  metrics.observeModelCall({ model: 'openai:x', seconds: 0.5, usage: usage(10, 2, 0.1) });
  metrics.observeModelCall({ model: 'openai:x', seconds: 1.5, usage: usage(5, 3, 0.2) });
  metrics.observeModelCall({ model: 'openai:x', seconds: 3 });
  expect(await value(metrics, 'dar_model_tokens_total', { model: 'openai:x', kind: 'input' })).toBe(
    15,
  );
  expect(await value(metrics, 'dar_model_tokens_total', { kind: 'cache_read' })).toBe(2);
  expect(await value(metrics, 'dar_model_cost_usd_total', { model: 'openai:x' })).toBeCloseTo(0.3);
  const text = await metrics.text();
  expect(text).toContain('dar_model_call_duration_seconds_count{model="openai:x",outcome="ok"} 2');
  expect(text).toContain(
    'dar_model_call_duration_seconds_count{model="openai:x",outcome="error"} 1',
  );
  metrics.observeToolCall('bash', true);
  metrics.observeToolCall('bash', false);
  expect(await value(metrics, 'dar_tool_failures_total', { tool: 'bash' })).toBe(1);
  expect(await value(metrics, 'dar_tool_calls_total', { tool: 'bash', outcome: 'ok' })).toBe(1);
});
