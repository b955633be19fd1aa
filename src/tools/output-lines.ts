/** A line longer than this is passed on before its end comes. */
const LONGEST_HELD_LINE = 4_000;

/**
 * Cuts a command's output chunks at line ends: `push` hands on the complete lines received so
 * far, `end` the rest. Followers then see whole lines, never half a word.
 */
export function outputLines(onLines: (text: string) => void) {
  let held = '';
  return {
    push(chunk: string): void {
      held += chunk;
      const end = held.lastIndexOf('\n');
      if (end === -1 && held.length < LONGEST_HELD_LINE) return;
      const cut = end === -1 ? held.length : end + 1;
      onLines(held.slice(0, cut));
      held = held.slice(cut);
    },
    end(): void {
      if (held !== '') onLines(held);
      held = '';
    },
  };
}
