/**
 * The environment a shell command runs with: the worker's, less its secrets (R25). A command's
 * output goes into the job's history, so a key the worker holds for a model provider must not
 * be one `env` away. Removed: names ending in _KEY, _TOKEN, _SECRET, _PASSWORD or _CREDENTIALS,
 * and names starting with a provider's prefix listed below. `DAR_BASH_PASS_ENV=NAME,NAME` lets
 * named variables through anyway.
 */
const SECRET_NAME = /(_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS|_KEY_FILE)$/i;
const SECRET_PREFIXES = [
  'ANTHROPIC_',
  'OPENAI_',
  'DAR_OPENAI_',
  'AWS_SECRET',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_',
];

export function commandEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const allowed = new Set(
    (environment.DAR_BASH_PASS_ENV ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(environment)) {
    const secret =
      SECRET_NAME.test(name) ||
      SECRET_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix));
    if (!secret || allowed.has(name)) kept[name] = value;
  }
  return kept;
}
