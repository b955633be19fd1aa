/**
 * Removes secrets from text and JSON values before they leave an activity (R25): a provider
 * may echo the key in an error message ("Incorrect API key provided: sk-...") or a model may
 * repeat it, and whatever an activity returns or throws is stored in workflow history.
 */

export const REDACTED = '[redacted]';

/** Shorter values are not treated as secrets: replacing them would garble ordinary text. */
const MIN_SECRET_LENGTH = 8;

function usable(secrets: readonly string[]): string[] {
  // Longest first, so that a key containing another key is replaced whole.
  return [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
}

export function scrubText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of usable(secrets)) result = result.split(secret).join(REDACTED);
  return result;
}

/** A copy of a plain JSON value with every secret replaced in every string (keys included). */
export function scrubJson<T>(value: T, secrets: readonly string[]): T {
  const list = usable(secrets);
  const text = JSON.stringify(value);
  if (text === undefined || !list.some((secret) => text.includes(secret))) return value;
  const scrubbed = JSON.parse(text, (_key, item: unknown) =>
    typeof item === 'string' ? scrubText(item, list) : item,
  ) as T;
  // Object keys are not visited by the reviver; a key made of a secret is vanishingly rare,
  // but the check below makes sure nothing slips through.
  const again = JSON.stringify(scrubbed);
  return list.some((secret) => again.includes(secret))
    ? (JSON.parse(scrubText(again, list)) as T)
    : scrubbed;
}
