/**
 * The real model providers behind `--model provider:model-id`, and where each one finds its
 * endpoint and key on the worker. Nothing here reads the environment: this is the table.
 */

/** The wire protocols of `@mariozechner/pi-ai` that the real providers use. */
export type RealProviderApi = 'anthropic-messages' | 'openai-responses' | 'openai-completions';

export interface RealProviderSpec {
  /** The `provider` part of `--model provider:model-id`. */
  name: string;
  /** The provider name in pi-ai's model registry (for known model ids, prices and limits). */
  piProvider: string;
  api: RealProviderApi;
  /** Environment variable that holds the key; `${keyVariable}_FILE` may name a file instead. */
  keyVariable: string;
  /** Without a key the call fails at once; false for local servers that take none. */
  keyRequired: boolean;
  /** Environment variable that overrides (or, without a default, sets) the base URL. */
  baseUrlVariable: string;
  /** Base URL when the variable is unset; undefined means the variable is required. */
  defaultBaseUrl?: string;
}

export const REAL_PROVIDERS: readonly RealProviderSpec[] = [
  {
    name: 'anthropic',
    piProvider: 'anthropic',
    api: 'anthropic-messages',
    keyVariable: 'ANTHROPIC_API_KEY',
    keyRequired: true,
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
  },
  {
    name: 'openai',
    piProvider: 'openai',
    api: 'openai-responses',
    keyVariable: 'OPENAI_API_KEY',
    keyRequired: true,
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
  },
  {
    name: 'openai-compatible',
    piProvider: 'openai-compatible',
    api: 'openai-completions',
    keyVariable: 'DAR_OPENAI_API_KEY',
    keyRequired: false,
    baseUrlVariable: 'DAR_OPENAI_BASE_URL',
  },
];

export function realProviderSpec(name: string): RealProviderSpec | undefined {
  return REAL_PROVIDERS.find((spec) => spec.name === name);
}

/** A clear sentence when `value` (read from `variable`) is not an http(s) URL; else undefined. */
export function baseUrlProblem(variable: string, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${variable} is not a URL: "${value}" (e.g. http://localhost:11434/v1)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${variable} must be an http or https URL, not "${value}"`;
  }
  return undefined;
}
