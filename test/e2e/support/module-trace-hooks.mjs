// Module resolution hooks of module-trace-register.mjs (they run on Node's loader thread).
import { appendFileSync } from 'node:fs';

let traceFile;

export function initialize(data) {
  traceFile = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(traceFile, `${resolved.url}\n`);
  return resolved;
}
