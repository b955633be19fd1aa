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

export function knownProviders(): string[] {
  return Object.keys(builtinProviders);
}

/** The provider for `provider:model-id`; a clear error for an unknown provider. */
export function resolveModel(name: string): ModelProvider {
  const { provider, id } = parseModelName(name);
  const factory = Object.hasOwn(builtinProviders, provider)
    ? builtinProviders[provider]
    : undefined;
  if (!factory) {
    throw new Error(
      `Unknown model provider "${provider}" in "${name}"; known: ${knownProviders().join(', ')}`,
    );
  }
  return factory(id);
}
