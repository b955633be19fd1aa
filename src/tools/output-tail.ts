/**
 * Keeps the last `limit` characters of a stream of text chunks: the end of a command's output
 * (where the error usually is) matters most, and the whole of it may not fit in memory.
 */
export class OutputTail {
  private kept = '';
  private total = 0;

  constructor(private readonly limit: number) {}

  append(chunk: string): void {
    this.kept += chunk;
    this.total += chunk.length;
    // Trimmed only once it has grown to twice the limit, so appends stay cheap.
    if (this.kept.length > 2 * this.limit) this.kept = this.kept.slice(-this.limit);
  }

  get truncated(): boolean {
    return this.total > this.limit;
  }

  /** The kept text, with a leading note when the beginning was cut. */
  text(): string {
    if (!this.truncated) return this.kept;
    return (
      `[Output cut: showing the last ${this.limit} of ${this.total} characters]\n` +
      this.kept.slice(-this.limit)
    );
  }
}
