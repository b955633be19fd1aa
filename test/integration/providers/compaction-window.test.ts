import { SUMMARY_MESSAGE_OPENING } from '../../../src/compaction/summary-request.js';
import { textOf } from '../../../src/core/index.js';
import { sseReply } from './fake-model-server.js';
import { responsesStream } from './openai-responses-stream.js';
import { ProviderRig, randomKey, resultOf } from './provider-rig.js';

/**
 * A real provider's model that pi-ai's registry lists needs no compaction setting: the model
 * activity reports the registry's context window, and the job compacts near it.
 */

let rig: ProviderRig;
/** pi-ai's registry: a context window of 1,047,576 tokens. */
const MODEL = 'openai:gpt-4.1-mini';
const WINDOW = 1_047_576;

beforeAll(async () => {
  rig = await ProviderRig.start('compaction-window');
  rig.setEnv({
    OPENAI_BASE_URL: `${rig.fake.url}/v1`,
    OPENAI_API_KEY: randomKey(),
    OPENAI_API_KEY_FILE: undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
});

test("the window comes from pi-ai's registry: near it the job summarises, and the next request carries the summary", async () => {
  rig.fake.reply(
    // Over the window less the default reserve (16,384 tokens).
    sseReply(
      responsesStream(
        [
          {
            type: 'function_call',
            callId: 'call_ls',
            name: 'ls',
            argumentChunks: ['{}'],
          },
        ],
        { input: WINDOW - 10_000, output: 100 },
      ),
    ),
    sseReply(
      responsesStream([{ type: 'message', chunks: ['REGISTRY-SUMMARY'] }], {
        input: 50,
        output: 5,
      }),
    ),
    sseReply(responsesStream([{ type: 'message', chunks: ['done'] }], { input: 60, output: 2 })),
  );
  const { job } = await rig.startJob(MODEL, 'PROMPT-TO-SUMMARISE');
  const result = await resultOf(job);
  expect(result.status.stopReason).toBe('stop');
  expect(result.status.compactions).toBe(1);
  expect(rig.fake.requests).toHaveLength(3);

  const [, summaryCall, next] = rig.fake.requests.map((request) => JSON.stringify(request.body));
  // The summary call sends the older part (the prompt) as text and no tools.
  expect(summaryCall).toContain('PROMPT-TO-SUMMARISE');
  expect((rig.fake.requests[1]?.body as { tools?: unknown[] }).tools ?? []).toEqual([]);
  // The next turn: the summary in place of the prompt, then the kept call and its result.
  expect(next).toContain(SUMMARY_MESSAGE_OPENING);
  expect(next).toContain('REGISTRY-SUMMARY');
  expect(next).toContain('call_ls');
  expect(next).not.toContain('PROMPT-TO-SUMMARISE');

  const events = await job.events(0, 10_000);
  const compaction = events.find((event) => event.type === 'compaction');
  expect(compaction).toMatchObject({ contextWindow: WINDOW, summarised: { start: 0, end: 1 } });
  // The transcript keeps the prompt.
  expect(textOf(result.messages[0]!)).toBe('PROMPT-TO-SUMMARISE');
});
