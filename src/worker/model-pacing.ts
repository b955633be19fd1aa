import { MODEL_QUEUE_PROVIDERS } from '../workflows/model-task-queue.js';

/** How fast the model calls of one provider may go. Unset fields: no limit of that kind. */
export interface ProviderPacing {
  /**
   * Model calls started per second on the provider's task queue, by all workers of the queue
   * together (Temporal's task-queue rate limit, enforced by the server). Every worker should be
   * given the same value: the last one to poll sets it.
   */
  ratePerSecond?: number;
  /** Model calls of this provider that one worker runs at once. */
  concurrency?: number;
}

/** Pacing per provider name (`openai`, `anthropic`, ...). Providers not named: no limits. */
export type ModelPacing = Readonly<Record<string, ProviderPacing>>;

/** The environment variable that configures model pacing on every worker. */
export const MODEL_RATE_VARIABLE = 'DAR_MODEL_RATE';

/** A malformed pacing setting; the message names the setting, the value and the fix. */
export class ModelPacingError extends Error {
  override name = 'ModelPacingError';
}

const EXAMPLE = 'e.g. openai=5/s,concurrency=4';
const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, min: 60, h: 3600 };

function fail(source: string, entry: string, problem: string): never {
  throw new ModelPacingError(`${source} "${entry}": ${problem}`);
}

/** `5/s`, `0.5/s`, `300/m`, `300/min`, `1000/h` as calls per second. */
function parseRate(source: string, entry: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\/(s|m|min|h)$/.exec(text);
  const seconds = match?.[2] === undefined ? undefined : SECONDS_PER_UNIT[match[2]];
  if (match?.[1] === undefined || seconds === undefined) {
    fail(source, entry, `"${text}" is not a rate; write calls per s, m or h (5/s, 300/m)`);
  }
  const perSecond = Number(match[1]) / seconds;
  if (!(perSecond > 0)) fail(source, entry, `the rate must be above 0, not "${text}"`);
  return perSecond;
}

function parseConcurrency(source: string, entry: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    fail(source, entry, `concurrency must be a whole number of at least 1, not "${text}"`);
  }
  return Number(text);
}

/** One `PROVIDER=SETTING[,SETTING]` entry: a rate (`5/s` or `rate=5/s`), `concurrency=N`. */
function parseEntry(source: string, entry: string): [string, ProviderPacing] {
  const equals = entry.indexOf('=');
  const provider = equals < 0 ? '' : entry.slice(0, equals).trim();
  const settings = equals < 0 ? '' : entry.slice(equals + 1).trim();
  if (!provider || !settings)
    fail(source, entry, `expected PROVIDER=RATE[,concurrency=N], ${EXAMPLE}`);
  if (!MODEL_QUEUE_PROVIDERS.includes(provider)) {
    fail(
      source,
      entry,
      `unknown provider "${provider}"; known: ${MODEL_QUEUE_PROVIDERS.join(', ')}`,
    );
  }
  const pacing: ProviderPacing = {};
  for (const raw of settings.split(',')) {
    const setting = raw.trim();
    const [name, value] = setting.includes('=')
      ? [
          setting.slice(0, setting.indexOf('=')).trim(),
          setting.slice(setting.indexOf('=') + 1).trim(),
        ]
      : ['rate', setting];
    if (name === 'rate') {
      if (pacing.ratePerSecond !== undefined) fail(source, entry, 'the rate is given twice');
      pacing.ratePerSecond = parseRate(source, entry, value);
    } else if (name === 'concurrency') {
      if (pacing.concurrency !== undefined) fail(source, entry, 'concurrency is given twice');
      pacing.concurrency = parseConcurrency(source, entry, value);
    } else {
      fail(source, entry, `unknown setting "${name}"; settings are a rate and concurrency=N`);
    }
  }
  return [provider, pacing];
}

/**
 * Reads a pacing setting: entries `PROVIDER=SETTINGS` separated by `;` or spaces, each with a
 * rate (`5/s`, `300/m`, `1000/h`, or `rate=5/s`) and/or `concurrency=N`, separated by commas:
 * `openai=5/s,concurrency=4; anthropic=50/m`. `source` names where the text came from (a flag
 * or a variable) in the error. A malformed entry, an unknown provider, a rate or concurrency that
 * is not above zero, or a provider named twice is a {@link ModelPacingError}.
 */
export function parseModelPacing(text: string, source: string): ModelPacing {
  const pacing: Record<string, ProviderPacing> = {};
  for (const entry of text.split(/[;\s]+/).filter((part) => part !== '')) {
    const [provider, settings] = parseEntry(source, entry);
    if (Object.hasOwn(pacing, provider)) fail(source, entry, `"${provider}" is named twice`);
    pacing[provider] = settings;
  }
  return pacing;
}

/**
 * The worker's pacing: `DAR_MODEL_RATE` from `environment`, then each of `flagValues` (the
 * `--model-rate` flags, in order) over it, provider by provider.
 */
export function modelPacingFrom(
  environment: Readonly<Record<string, string | undefined>>,
  flagValues: readonly string[] = [],
): ModelPacing {
  let pacing: ModelPacing = parseModelPacing(
    environment[MODEL_RATE_VARIABLE] ?? '',
    MODEL_RATE_VARIABLE,
  );
  for (const value of flagValues) {
    pacing = { ...pacing, ...parseModelPacing(value, '--model-rate') };
  }
  return pacing;
}

/** `openai 5/s, 4 at once; anthropic 0.83/s` for log lines; `none` when nothing is set. */
export function describeModelPacing(pacing: ModelPacing): string {
  const parts = Object.entries(pacing).map(([provider, { ratePerSecond, concurrency }]) => {
    const limits = [
      ...(ratePerSecond === undefined ? [] : [`${Number(ratePerSecond.toFixed(3))}/s`]),
      ...(concurrency === undefined ? [] : [`${concurrency} at once`]),
    ];
    return `${provider} ${limits.join(', ')}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'none';
}

/**
 * The providers `pacing` limits (a rate or a concurrency): their model calls must stay on their
 * provider's task queue. A job's model call tells its workflow whether its worker paces the
 * provider, and the calls of an unpaced provider go on the job's own queue, where they start in
 * the answer to the workflow task that schedules them.
 */
export function pacedProviders(pacing: ModelPacing): ReadonlySet<string> {
  return new Set(
    Object.entries(pacing)
      .filter(
        ([, { ratePerSecond, concurrency }]) =>
          ratePerSecond !== undefined || concurrency !== undefined,
      )
      .map(([provider]) => provider),
  );
}
