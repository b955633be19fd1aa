export interface TextEdit {
  oldText: string;
  newText: string;
}

/** Start offsets of every occurrence of `needle`, overlapping ones included. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1;) {
    found.push(index);
    index = haystack.indexOf(needle, index + 1);
  }
  return found;
}

/**
 * Applies the edits in order, each to the text the previous one left, and returns the result;
 * throws on the first edit whose `oldText` does not occur exactly once. Pure: the caller writes
 * the file only when every edit applied.
 */
export function applyEdits(text: string, edits: readonly TextEdit[], path: string): string {
  let current = text;
  edits.forEach((edit, index) => {
    const label = edits.length === 1 ? 'oldText' : `edits[${index}].oldText`;
    if (edit.oldText === '') throw new Error(`${label} is empty; it must name text to replace`);
    const found = occurrences(current, edit.oldText);
    const start = found[0];
    if (start === undefined) {
      throw new Error(
        `${label} was not found in ${path}; it must match the file exactly, whitespace included`,
      );
    }
    if (found.length > 1) {
      throw new Error(
        `${label} is ambiguous: it occurs ${found.length} times in ${path}; ` +
          'include more surrounding text so that it occurs once',
      );
    }
    // Slicing, not String.replace: `$&` and friends in newText must stay literal.
    current = current.slice(0, start) + edit.newText + current.slice(start + edit.oldText.length);
  });
  return current;
}
