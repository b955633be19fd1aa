import type { Api, Model } from '@mariozechner/pi-ai';
import { baseUrlProblem, type RealProviderSpec } from './real-providers.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** A configuration mistake on the worker (no base URL, a malformed one): retrying cannot help. */
export class ModelSetupError extends Error {
  override name = 'ModelSetupError';
}

/** The base URL for a provider on this worker: its variable, else its default. */
export function resolveBaseUrl(spec: RealProviderSpec, env: Environment = process.env): string {
  const value = env[spec.baseUrlVariable]?.trim();
  if (!value) {
    if (spec.defaultBaseUrl !== undefined) return spec.defaultBaseUrl;
    throw new ModelSetupError(
      `${spec.name} needs the server's base URL: set ${spec.baseUrlVariable} in the environment ` +
        `of the worker (e.g. http://localhost:11434/v1 for Ollama)`,
    );
  }
  const problem = baseUrlProblem(spec.baseUrlVariable, value);
  if (problem) throw new ModelSetupError(problem);
  return value.replace(/\/+$/, '');
}

/** Limits assumed for a model id pi-ai's registry does not know (no prices: cost stays 0). */
function unknownModel(spec: RealProviderSpec, id: string, baseUrl: string): Model<Api> {
  const model: Model<Api> = {
    id,
    name: id,
    api: spec.api,
    provider: spec.piProvider,
    baseUrl,
    reasoning: false,
    input: ['text', 'image'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    // 0 sends no output limit (the server's default); Anthropic requires one.
    maxTokens: spec.api === 'anthropic-messages' ? 8192 : 0,
  };
  if (spec.api === 'openai-completions') {
    // The plain Chat Completions subset every compatible server (Ollama, vLLM, LM Studio,
    // llama.cpp) accepts: no `store`, no `developer` role, `max_tokens`, no `strict` tools.
    model.input = ['text'];
    model.compat = {
      supportsStore: false,
      supportsDeveloperRole: false,
      supportsReasoningEffort: false,
      supportsStrictMode: false,
      maxTokensField: 'max_tokens',
    };
  }
  return model;
}

/**
 * The pi-ai model for `spec.name:id`: the registry's entry when it knows the id (limits and
 * prices, so usage carries a cost), else one built for the id; in both cases pointed at the
 * base URL configured on this worker.
 */
export function buildModel(
  spec: RealProviderSpec,
  id: string,
  registry: readonly Model<Api>[],
  env: Environment = process.env,
): Model<Api> {
  const baseUrl = resolveBaseUrl(spec, env);
  const known = registry.find((model) => model.id === id && model.api === spec.api);
  return known ? { ...known, baseUrl } : unknownModel(spec, id, baseUrl);
}
