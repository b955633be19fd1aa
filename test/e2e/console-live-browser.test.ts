/**
 * The console's job page in headless Chromium shows a job's live output (issue 12 item 4): the
 * answer as the model writes it (a draft entry, token by token), a running bash command's
 * lines in its card before the command ends, and the final message in place of the draft at
 * `message_end`. A real dev server and worker, a fake OpenAI-compatible server streaming SSE
 * with delays.
 */
import type { Page } from 'playwright-core';
import { startConsoleServer, type ConsoleServer } from '../../src/console/console-server.js';
import { sseReply } from '../integration/providers/fake-model-server.js';
import { chatStream } from '../integration/providers/openai-chat-stream.js';
import { ProviderRig, randomKey } from '../integration/providers/provider-rig.js';
import { useChromium } from '../support/chromium-browser.js';

const chromium = useChromium();
let rig: ProviderRig;
let web: ConsoleServer;
let page: Page;

beforeAll(async () => {
  rig = await ProviderRig.start('console-live-browser');
  rig.setEnv({ DAR_OPENAI_BASE_URL: `${rig.fake.url}/v1`, DAR_OPENAI_API_KEY: randomKey() });
  web = await startConsoleServer({ client: rig.environment.client, store: rig.store });
  page = await (await chromium.browser.newContext()).newPage();
  await page.goto(web.loginUrl);
}, 120_000);

afterAll(async () => {
  await web?.close();
  await rig?.stop();
});

test('the job page shows the answer being written and bash lines as they come; the final message replaces the draft', async () => {
  const command = 'for i in 1 2 3 4; do echo "row-$((i * 3))"; sleep 0.5; done';
  const words = ['Falcon ', 'glides ', 'over ', 'the ', 'valley ', 'slowly'];
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        text: words,
        toolCalls: [{ id: 'call_f', name: 'bash', argumentChunks: [JSON.stringify({ command })] }],
      }),
      { delayMs: 300 },
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['All ', 'rows ', 'shown'] }), {
      delayMs: 300,
    }),
  );
  const { job } = await rig.startJob('openai-compatible:stream-model', 'rows');
  await page.goto(`${web.url}job?${new URLSearchParams({ id: job.workflowId }).toString()}`);

  // A draft with part of the answer, before the whole answer is written.
  const draft = page.locator('li.event.live[data-type="live-message"]').first();
  await draft.waitFor({ timeout: 30_000 });
  await page.locator('li.event.live', { hasText: 'Falcon' }).waitFor({ timeout: 30_000 });
  const partial = (await draft.textContent()) ?? '';
  expect(partial).not.toContain('slowly');

  // Bash lines in the tool card while it runs (not all of them yet).
  const result = page.locator('li.tool-call .tool-result').first();
  await page
    .locator('li.tool-call .tool-result', { hasText: 'row-3' })
    .waitFor({ timeout: 30_000 });
  expect(await result.textContent()).not.toContain('row-12');
  expect(await result.getAttribute('class')).toContain('running');

  // At the end: final messages only, no draft left.
  await page
    .locator('li.event.message.assistant:not(.live)', { hasText: 'All rows shown' })
    .waitFor({ timeout: 30_000 });
  expect(await page.locator('li.event.live').count()).toBe(0);
  expect(
    await page.locator('li.event.message.assistant:not(.live)').first().textContent(),
  ).toContain('Falcon glides over the valley slowly');
  expect(await result.textContent()).toBe('row-3\nrow-6\nrow-9\nrow-12\n');
  // One card for the call, whether its live output or its start event came first.
  expect(await page.locator('li.tool-call').count()).toBe(1);
  expect(await page.locator('li.tool-call .tool-arguments').textContent()).toContain('row-');
}, 120_000);
