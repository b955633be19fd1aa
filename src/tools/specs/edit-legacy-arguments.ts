/**
 * R7 shim for `edit`: older callers send one replacement as top-level `oldText`/`newText`.
 * Lifts it into `edits` (appended after any `edits` already given) and returns a new object.
 * Anything else, including arguments that are not an object, is returned as it is: the schema
 * check that follows reports what is wrong.
 */
export function liftLegacyEditArguments(rawArguments: unknown): unknown {
  if (typeof rawArguments !== 'object' || rawArguments === null || Array.isArray(rawArguments)) {
    return rawArguments;
  }
  const { oldText, newText, ...rest } = rawArguments as Record<string, unknown>;
  const hasOldText = Object.hasOwn(rawArguments, 'oldText');
  const hasNewText = Object.hasOwn(rawArguments, 'newText');
  if (!hasOldText && !hasNewText) return rawArguments;
  if (rest.edits !== undefined && !Array.isArray(rest.edits)) return rawArguments;

  // Only the fields that were sent: a missing one is then reported as required, by name.
  const legacyEdit: Record<string, unknown> = {};
  if (hasOldText) legacyEdit.oldText = oldText;
  if (hasNewText) legacyEdit.newText = newText;
  const earlierEdits: unknown[] = Array.isArray(rest.edits) ? rest.edits : [];
  return { ...rest, edits: [...earlierEdits, legacyEdit] };
}
