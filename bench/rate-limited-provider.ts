import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the provider saw in one run. */
export interface ProviderCounts {
  /** Requests answered with a model answer. */
  answered: number;
  /** Requests answered 429 (over the limit). */
  limited: number;
  /** When each answered request arrived (Date.now()), in order. */
  answeredAt: number[];
}

/**
 * An OpenAI-compatible Chat Completions API on 127.0.0.1 (`POST /v1/chat/completions`, streamed
 * answers, the protocol pi-ai's `openai-completions` provider speaks) limited to `ratePerSecond`
 * requests a second like the real providers: a token bucket holding one second of requests,
 * refilled continuously. A request over the limit gets `429` with `Retry-After` (whole seconds
 * until a request would pass, at least 1) and OpenAI's `rate_limit_exceeded` body.
 */
export class RateLimitedProvider {
  readonly counts: ProviderCounts = { answered: 0, limited: 0, answeredAt: [] };
  private tokens: number;
  private refilledAt = performance.now();

  private constructor(
    private readonly server: Server,
    readonly ratePerSecond: number,
    private readonly answerDelayMs: number,
  ) {
    this.tokens = ratePerSecond;
  }

  /** Starts the server; `answerDelayMs` is how long an answer takes to stream. */
  static async start(ratePerSecond: number, answerDelayMs = 100): Promise<RateLimitedProvider> {
    const server = createServer();
    const provider = new RateLimitedProvider(server, ratePerSecond, answerDelayMs);
    server.on('request', (request, response) => {
      // The body is read (and dropped) so that the client sees a normal exchange.
      request.resume();
      request.on('end', () => void provider.answer(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  /** The base URL for `DAR_OPENAI_BASE_URL`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Takes a token when there is one; else the seconds until there will be. */
  private take(): { allowed: true } | { allowed: false; waitSeconds: number } {
    const now = performance.now();
    const capacity = this.ratePerSecond;
    this.tokens = Math.min(
      capacity,
      this.tokens + ((now - this.refilledAt) / 1000) * this.ratePerSecond,
    );
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, waitSeconds: (1 - this.tokens) / this.ratePerSecond };
  }

  private async answer(response: ServerResponse): Promise<void> {
    const verdict = this.take();
    if (!verdict.allowed) {
      this.counts.limited += 1;
      response.writeHead(429, {
        'content-type': 'application/json',
        'retry-after': String(Math.max(1, Math.ceil(verdict.waitSeconds))),
      });
      response.end(
        JSON.stringify({
          error: {
            message: `Rate limit reached for requests: limit ${this.ratePerSecond}/s`,
            type: 'requests',
            code: 'rate_limit_exceeded',
          },
        }),
      );
      return;
    }
    this.counts.answered += 1;
    this.counts.answeredAt.push(Date.now());
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finishReason: string | null, usage?: object) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'bench-model',
        choices: usage ? [] : [{ index: 0, delta, finish_reason: finishReason }],
        ...(usage ? { usage } : {}),
      })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    await new Promise((resolve) => setTimeout(resolve, this.answerDelayMs));
    response.write(chunk({ content: 'done' }, null));
    response.write(chunk({}, 'stop'));
    response.write(chunk({}, null, { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 }));
    response.end('data: [DONE]\n\n');
  }
}
