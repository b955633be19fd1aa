/**
 * The dev server's own counters (its Prometheus endpoint, `--metrics-port`): requests each
 * service handled and the persistence and visibility operations they made, by operation. Read before and after
 * a side's measure, they say what the server did per turn, which its CPU alone cannot.
 */
export type ServerCounters = Map<string, number>;

/**
 * Every `<kind>_requests{...operation="X",...service_name="Y"} value` counter (service calls,
 * persistence and visibility operations, ...) -> `<kind>:Y:X` -> value, summed over the rest
 * of the labels.
 */
export function parseCounters(text: string): ServerCounters {
  const counters: ServerCounters = new Map();
  for (const line of text.split('\n')) {
    const brace = line.indexOf('{');
    if (brace < 0) continue;
    const name = line.slice(0, brace);
    if (!name.endsWith('_requests')) continue;
    const labels = line.slice(brace + 1, line.lastIndexOf('}'));
    const operation = /operation="([^"]*)"/.exec(labels)?.[1] ?? '?';
    const service = /service_name="([^"]*)"/.exec(labels)?.[1] ?? '?';
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    const key = `${name.slice(0, -'_requests'.length)}:${service}:${operation}`;
    counters.set(key, (counters.get(key) ?? 0) + value);
  }
  return counters;
}

export async function readServerCounters(metricsUrl: string): Promise<ServerCounters> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  return parseCounters(await response.text());
}

/** What changed between two readings, per turn, largest first, zeros left out. */
export function countersPerTurn(
  before: ServerCounters,
  after: ServerCounters,
  turns: number,
): Record<string, number> {
  const perTurn: [string, number][] = [];
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) perTurn.push([key, Math.round((delta / turns) * 100) / 100]);
  }
  perTurn.sort((left, right) => right[1] - left[1]);
  return Object.fromEntries(perTurn);
}
