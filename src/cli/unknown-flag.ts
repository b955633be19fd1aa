/**
 * What `dar CMD` says about a flag it does not know: Node's parser explains how to pass a
 * positional that starts with `-`, which is rarely what happened. A misspelt flag is the usual
 * cause, so name the closest one the command has, if one is close.
 */
export function unknownFlagMessage(
  command: string,
  flag: string,
  known: Readonly<Record<string, { short?: string }>>,
): string {
  const closest = closestName(flag, Object.keys(known));
  const hint = closest === undefined ? '' : ` (did you mean --${closest}?)`;
  return `dar ${command}: unknown option ${flag}${hint}; \`dar help ${command}\` lists the options`;
}

/**
 * The name nearest what was typed (a flag `--modle` -> `model`, a command `stauts` ->
 * `status`), when at most a third of it differs.
 */
export function closestName(typedText: string, names: readonly string[]): string | undefined {
  const typed = typedText.replace(/^-+/, '').split('=')[0] ?? '';
  if (typed === '') return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { name, distance };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit (`--modle`). */
function editDistance(from: string, to: string): number {
  const rows = Array.from({ length: from.length + 1 }, (_, index) => [index]);
  const cell = (row: number, column: number) => rows[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let column = 1; column <= to.length; column += 1) (rows[0] as number[])[column] = column;
  for (let row = 1; row <= from.length; row += 1) {
    for (let column = 1; column <= to.length; column += 1) {
      const same = from[row - 1] === to[column - 1];
      let distance = Math.min(
        cell(row - 1, column) + 1,
        cell(row, column - 1) + 1,
        cell(row - 1, column - 1) + (same ? 0 : 1),
      );
      const swapped =
        row > 1 &&
        column > 1 &&
        from[row - 1] === to[column - 2] &&
        from[row - 2] === to[column - 1];
      if (swapped) distance = Math.min(distance, cell(row - 2, column - 2) + 1);
      (rows[row] as number[])[column] = distance;
    }
  }
  return cell(from.length, to.length);
}
