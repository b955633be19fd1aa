import { resolveModel } from './registry.js';

/**
 * The context window of `provider:model-id` in tokens, when its provider knows it (pi-ai's model
 * registry for the models it lists); undefined otherwise, and for a malformed name.
 */
export async function modelContextWindow(model: string): Promise<number | undefined> {
  try {
    return await resolveModel(model).contextWindow?.();
  } catch {
    return undefined;
  }
}
