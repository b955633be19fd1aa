/** How many frames an `Error` made in workflow code records, five calls deep. */
export async function errorStackFrames(): Promise<number> {
  const depth = (remaining: number): Error =>
    remaining === 0 ? new Error('here') : depth(remaining - 1);
  const stack = depth(5).stack ?? '';
  return stack.split('\n').filter((line) => line.trimStart().startsWith('at ')).length;
}
