/** Whether a parsed JSON value is an object (not null, not an array): a provider's body, say. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
