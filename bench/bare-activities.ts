/** The baseline's "model": says how many no-op calls this turn makes. */
export async function bareModel(_turn: number, callsPerTurn: number): Promise<number[]> {
  return Array.from({ length: callsPerTurn }, (_, index) => index);
}

export async function bareNoop(index: number): Promise<number> {
  return index;
}
