/** The baseline's "model": says how many no-op calls this turn makes. */
export async function bareModel(_turn: number, callsPerTurn: number): Promise<number[]> {
  return Array.from({ length: callsPerTurn }, (_, index) => index);
}

export async function bareNoop(index: number): Promise<number> {
  return index;
}

/**
 * The shaped baseline's "model" (see `shapedTurns`): as `bareModel`, with an answer padded to
 * `answerCharacters`, about what the runner's model activity returns (its thin message and
 * references). The padding it is sent is ignored.
 */
export async function shapedModel(
  _turn: number,
  callsPerTurn: number,
  _padding: string,
  answerCharacters: number,
): Promise<{ calls: number[]; padding: string }> {
  return {
    calls: Array.from({ length: callsPerTurn }, (_, index) => index),
    padding: 'x'.repeat(answerCharacters),
  };
}

/** The shaped baseline's tool body: as `bareNoop`, with a result padded to `resultCharacters`. */
export async function shapedNoop(
  index: number,
  _padding: string,
  resultCharacters: number,
): Promise<{ index: number; padding: string }> {
  return { index, padding: 'x'.repeat(resultCharacters) };
}
