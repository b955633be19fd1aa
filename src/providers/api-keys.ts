import { REAL_PROVIDERS, type RealProviderSpec } from './real-providers.js';
import { UnreadableFileError, readSmallRegularFile } from './regular-file-sync.js';

/**
 * API keys, read on the worker at call time (R25): from `<VARIABLE>` or, when that is unset or
 * empty, from the file named by `<VARIABLE>_FILE` (Docker and Kubernetes secrets). A key never
 * travels in workflow input; the workflow only knows the provider name.
 */

type Environment = Readonly<Record<string, string | undefined>>;

/** A key that cannot be had: the message names the variable (never a value). */
export class MissingApiKeyError extends Error {
  override name = 'MissingApiKeyError';
}

/**
 * A key file larger than this is not a key file. Key files are read on every model call and
 * every few hundred milliseconds while a job streams (to scrub keys from what leaves a worker).
 */
export const MAXIMUM_KEY_FILE_BYTES = 64 * 1024;

function readKeyFile(variable: string, path: string): string {
  let text: string;
  try {
    text = readSmallRegularFile(path, MAXIMUM_KEY_FILE_BYTES);
  } catch (error) {
    const why =
      error instanceof UnreadableFileError
        ? error.message
        : ((error as NodeJS.ErrnoException).code ?? 'unreadable');
    throw new MissingApiKeyError(`${variable}_FILE names ${path}, which cannot be read (${why})`);
  }
  const key = text.trim();
  if (key === '') throw new MissingApiKeyError(`${variable}_FILE names ${path}, which is empty`);
  return key;
}

/** The key from the variable or its file; undefined when neither is set. */
function lookUpKey(variable: string, env: Environment): string | undefined {
  const direct = env[variable]?.trim();
  if (direct) return direct;
  const file = env[`${variable}_FILE`]?.trim();
  return file ? readKeyFile(variable, file) : undefined;
}

/**
 * The key for one provider. A provider that needs one and has none throws
 * {@link MissingApiKeyError}; one that does not (a local server) gets undefined.
 */
export function readApiKey(
  spec: RealProviderSpec,
  env: Environment = process.env,
): string | undefined {
  const key = lookUpKey(spec.keyVariable, env);
  if (key === undefined && spec.keyRequired) {
    throw new MissingApiKeyError(
      `No API key for ${spec.name}: set ${spec.keyVariable} (or ${spec.keyVariable}_FILE, ` +
        `a file holding the key) in the environment of the worker`,
    );
  }
  return key;
}

/** Every key configured on this worker, for scrubbing text that leaves an activity. */
export function configuredApiKeys(env: Environment = process.env): string[] {
  const keys: string[] = [];
  for (const spec of REAL_PROVIDERS) {
    try {
      const key = lookUpKey(spec.keyVariable, env);
      if (key !== undefined) keys.push(key);
    } catch {
      // An unreadable key file holds nothing that could leak.
    }
  }
  return keys;
}
