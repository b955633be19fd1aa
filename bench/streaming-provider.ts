import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible Chat Completions API on 127.0.0.1 that streams its answers token by
 * token (`t<i> `, one SSE chunk each, `tokenIntervalMs` apart) and notes when it wrote each
 * token, for measuring how long a token takes to reach a follower. A conversation with fewer
 * than `toolTurns` assistant messages gets a `bash` tool call after its text; then a final
 * answer.
 */
export class StreamingProvider {
  /** Date.now() when token i of the current answer was written. */
  sentAt: number[] = [];
  private constructor(
    private readonly server: Server,
    private readonly options: { tokens: number; tokenIntervalMs: number; toolTurns: number },
  ) {}

  static async start(options: {
    tokens: number;
    tokenIntervalMs: number;
    toolTurns: number;
  }): Promise<StreamingProvider> {
    const server = createServer();
    const provider = new StreamingProvider(server, options);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          messages: { role: string }[];
        };
        const answered = body.messages.filter((message) => message.role === 'assistant').length;
        void provider.answer(response, answered < options.toolTurns ? answered : undefined);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(response: ServerResponse, toolTurn: number | undefined): Promise<void> {
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
    this.sentAt = [];
    for (let index = 0; index < this.options.tokens; index += 1) {
      await new Promise((resolve) => setTimeout(resolve, this.options.tokenIntervalMs));
      response.write(chunk({ content: `t${index} ` }, null));
      this.sentAt[index] = Date.now();
    }
    if (toolTurn !== undefined) {
      const call = {
        index: 0,
        id: `call_${toolTurn}`,
        type: 'function',
        function: {
          name: 'bash',
          arguments: JSON.stringify({
            command: 'for i in 1 2 3; do echo line $i; sleep 0.1; done',
          }),
        },
      };
      response.write(chunk({ tool_calls: [call] }, null));
    }
    response.write(chunk({}, toolTurn === undefined ? 'stop' : 'tool_calls'));
    response.write(chunk({}, null, { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 }));
    response.end('data: [DONE]\n\n');
  }
}
