import { parseModelName, type ModelProvider } from './model-provider.js';
import { piAiProvider } from './pi-ai-provider.js';
import { REAL_PROVIDERS } from './real-providers.js';
import { scriptedProvider } from './scripted-provider.js';

/** Makes the provider for one model id. May throw if the id is malformed for that provider. */
export type ProviderFactory = (modelId: string) => ModelProvider;

const builtinProviders: Record<string, ProviderFactory> = {
  scripted: scriptedProvider,
  ...Object.fromEntries(
    REAL_PROVIDERS.map((spec) => [spec.name, (id: string) => piAiProvider(spec, id)]),
  ),
};

/** Providers a worker was given (`createAgentWorker({ providers })`), for this process. */
const addedProviders = new Map<string, ProviderFactory>();

/**
 * Adds providers for this process's model calls. A built-in provider's name, or one added
 * before with another factory, is refused: a model name must mean one thing in a process.
 */
export function addProviders(providers: Readonly<Record<string, ProviderFactory>>): void {
  for (const [name, factory] of Object.entries(providers)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) {
      throw new Error(`Provider name "${name}" must be letters, digits, _ and -`);
    }
    const known = Object.hasOwn(builtinProviders, name)
      ? builtinProviders[name]
      : addedProviders.get(name);
    if (known && known !== factory) throw new Error(`Provider ${name} is already defined`);
    addedProviders.set(name, factory);
  }
}

export function knownProviders(): string[] {
  return [...Object.keys(builtinProviders), ...addedProviders.keys()];
}

/** The provider for `provider:model-id`; a clear error for an unknown provider. */
export function resolveModel(name: string): ModelProvider {
  const { provider, id } = parseModelName(name);
  const factory = Object.hasOwn(builtinProviders, provider)
    ? builtinProviders[provider]
    : addedProviders.get(provider);
  if (!factory) {
    throw new Error(
      `Unknown model provider "${provider}" in "${name}"; known: ${knownProviders().join(', ')}`,
    );
  }
  return factory(id);
}
