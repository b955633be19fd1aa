/**
 * Puts an environment variable back as it was before a benchmark set it. Assigning `undefined`
 * to `process.env.NAME` stores the string "undefined", which the next reader takes as a value.
 */
export function restoreVariable(name: string, saved: string | undefined): void {
  if (saved === undefined) delete process.env[name];
  else process.env[name] = saved;
}
