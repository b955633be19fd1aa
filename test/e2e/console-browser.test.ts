/**
 * The operator console (`dar ui`) in headless Chromium, over a real Temporal dev server, worker
 * and job store: the jobs list and its filter, a job's events arriving while its page is open
 * (tool calls with arguments and results, errors in red), model and tool text with markup shown
 * as text with no script run, and a running job cancelled from its page (R21).
 *
 * With DAR_CONSOLE_SCREENSHOTS=DIR, the pages are also saved as PNG files in DIR (the README's
 * pictures: `DAR_CONSOLE_SCREENSHOTS=docs npx jest test/e2e/console-browser.test.ts`).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentJob } from '../../src/client/job-client.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../support/agent-harness.js';
import { useChromium } from '../support/chromium-browser.js';
import { useConsoleServer } from '../support/console-harness.js';

const server = useAgentTestServer('console-browser');
const web = useConsoleServer(server);
const chromium = useChromium();
const screenshots = process.env.DAR_CONSOLE_SCREENSHOTS;
const BATCH = `nightly-${process.pid}`;

const SCRIPT_IN_MODEL = '<script>window.__injected = "model script"</script>';
const IMAGE_IN_MODEL = '<img src=x onerror="window.__injected = \'model image\'">';
const SCRIPT_IN_TOOL = '<script>window.__injected = "tool script"</script>';
// (No single quote: the tool prints it from a single-quoted shell word.)
const IMAGE_IN_TOOL = '<img src=x onerror="window.__injected = 42">';

let page: Page;
/** Jobs left waiting for a message (the jobs list shows them), ended by the last test. */
const keptOpen: AgentJob[] = [];
/** Messages the page logged (a blocked script would log a Content Security Policy report). */
let pageLog: string[];

function jobHref(job: AgentJob): string {
  return `${web.console.url}job?${new URLSearchParams({ id: job.workflowId }).toString()}`;
}

function workspace(): string {
  return temporaryFolder('dar-console-browser-');
}

async function saveScreenshot(name: string): Promise<void> {
  if (screenshots) await page.screenshot({ path: join(screenshots, name), fullPage: true });
}

beforeAll(async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  pageLog = [];
  page.on('console', (message) => pageLog.push(message.text()));
  page.on('pageerror', (error) => pageLog.push(`page error: ${error.message}`));
  // Signs in: the login address sets the console's cookie for the whole context.
  await page.goto(web.console.loginUrl);
});

test('a job page shows its events as they arrive: tool calls with arguments and results, a failed call in red', async () => {
  const folder = workspace();
  const job = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        {
          stopReason: 'toolUse',
          content: [
            text('Let me look at the workspace first.'),
            toolCall('list-call', 'bash', { command: 'echo hello from bash' }),
            toolCall('missing-call', 'read', { path: 'missing.txt' }),
          ],
          usage: { input: 1200, output: 80, costUsd: 0.0042 },
        },
        {
          stopReason: 'stop',
          content: [text('missing.txt does not exist; the workspace is empty otherwise.')],
          usage: { input: 1400, output: 40, costUsd: 0.0031 },
        },
        {
          stopReason: 'stop',
          content: [text('Here is the second answer.')],
          usage: { input: 1500, output: 30, costUsd: 0.003 },
        },
      ]),
      workspace: folder,
      batchId: BATCH,
      keepOpenMs: 120_000,
    }),
  );
  await page.goto(jobHref(job));
  const timeline = page.locator('#timeline');
  const okCard = timeline.locator('.tool-call[data-tool-call-id="list-call"]');
  await okCard.locator('.tool-result', { hasText: 'hello from bash' }).waitFor();
  // (The live output can make the card before its start event brings the arguments.)
  await okCard
    .locator('.tool-arguments', { hasText: '"command": "echo hello from bash"' })
    .waitFor();
  const failedCard = timeline.locator('.tool-call[data-tool-call-id="missing-call"]');
  await failedCard.locator('.tool-result', { hasText: /missing\.txt/ }).waitFor();
  await expect(failedCard.getAttribute('class')).resolves.toMatch(/\berror\b/);
  // (Page code as text: the tests are type-checked without the DOM's types.)
  const resultColor = await page.evaluate(
    `getComputedStyle(document.querySelector('[data-tool-call-id="missing-call"] .tool-result')).color`,
  );
  expect(resultColor).toBe('rgb(180, 35, 24)');
  await timeline.locator('.assistant', { hasText: 'missing.txt does not exist' }).waitFor();
  await page.locator('[data-field="phase"]', { hasText: 'waiting' }).waitFor();

  // The job waits for a message; what it does next arrives on the open page.
  const before = await timeline.locator('.event').count();
  await job.followUp('Now summarise it in one line.');
  await timeline.locator('.user', { hasText: 'Now summarise it in one line.' }).waitFor();
  await timeline.locator('.assistant', { hasText: 'Here is the second answer.' }).waitFor();
  expect(await timeline.locator('.event').count()).toBeGreaterThan(before);
  const entries = await timeline.locator('.event').all();
  const seqs = await Promise.all(
    entries.map(async (entry) => Number(await entry.getAttribute('data-seq'))),
  );
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  await page.locator('[data-field="turns"]', { hasText: '3' }).waitFor();
  await saveScreenshot('console-job.png');
  keptOpen.push(job);
});

test('model output and tool output with <script> and <img onerror> show as text; no script runs', async () => {
  const folder = workspace();
  const job = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        {
          stopReason: 'toolUse',
          content: [
            text(`${SCRIPT_IN_MODEL} ${IMAGE_IN_MODEL}`),
            toolCall('markup-call', 'bash', {
              command: `printf '%s\\n' '${SCRIPT_IN_TOOL}' '${IMAGE_IN_TOOL}'`,
            }),
          ],
        },
        { stopReason: 'stop', content: [text(IMAGE_IN_MODEL)] },
      ]),
      workspace: folder,
    }),
  );
  await job.result();
  pageLog = [];
  await page.goto(jobHref(job));
  const timeline = page.locator('#timeline');
  await timeline.locator('[data-type="agent_end"]').waitFor();
  const shown = (await timeline.textContent()) ?? '';
  for (const markup of [SCRIPT_IN_MODEL, IMAGE_IN_MODEL, SCRIPT_IN_TOOL, IMAGE_IN_TOOL]) {
    expect(shown).toContain(markup);
  }
  await expect(timeline.locator('img, script').count()).resolves.toBe(0);
  await expect(page.evaluate('window.__injected')).resolves.toBe(undefined);
  // Not even blocked by the Content Security Policy: the markup never became elements.
  expect(pageLog.filter((line) => /Content Security Policy|page error/i.test(line))).toEqual([]);
});

test("R21: Cancel on a running job's page stops its tool and the job ends cancelled", async () => {
  const folder = workspace();
  const job = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        { stopReason: 'toolUse', content: [toolCall('sleeper', 'bash', { command: 'sleep 60' })] },
        { stopReason: 'stop', content: [text('never reached')] },
      ]),
      workspace: folder,
    }),
  );
  await page.goto(jobHref(job));
  const card = page.locator('.tool-call[data-tool-call-id="sleeper"]');
  await card.locator('.tool-result.running').waitFor();
  const cancel = page.locator('#cancel-button');
  // Enabled once the page has read that the job runs.
  await page.locator('#cancel-button:enabled').waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  const clicked = Date.now();
  await cancel.click();
  await page.locator('#action-message', { hasText: 'Cancellation requested' }).waitFor();
  await card.locator('.tool-result', { hasText: 'Operation aborted' }).waitFor();
  await expect(card.getAttribute('class')).resolves.toMatch(/\berror\b/);
  await page.locator('[data-type="agent_end"]').waitFor();
  await page.locator('[data-field="workflow"]', { hasText: 'cancelled' }).waitFor();
  expect(Date.now() - clicked).toBeLessThan(20_000);
  await expect(cancel.isDisabled()).resolves.toBe(true);
  expect((await job.handle.describe()).status.name).toBe('CANCELLED');
  await expect(page.locator('.event', { hasText: 'never reached' }).count()).resolves.toBe(0);
});

test('the jobs list shows each job with phase, turns, cost, batch and age; a new job appears without a reload; the phase filter works', async () => {
  const folder = workspace();
  const done = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        {
          stopReason: 'stop',
          content: [text('all done')],
          usage: { input: 100, output: 20, costUsd: 0.0125 },
        },
      ]),
      workspace: folder,
      batchId: BATCH,
    }),
  );
  await done.result();
  await page.goto(web.console.url);
  const row = page.locator(`tr[data-job-id="${done.workflowId}"]`);
  // Temporal's list sees a closed job a moment after it closed.
  await row.locator('td.workflow-status', { hasText: 'completed' }).waitFor();
  await expect(row.locator('td').allTextContents()).resolves.toEqual([
    done.workflowId,
    'completed',
    'done',
    '1',
    '$0.0125',
    BATCH,
    expect.stringMatching(/^(\d+s|\d+m \d\ds)$/),
  ]);

  // Started while the page is open: the list reads again by itself.
  const folder2 = workspace();
  const waiting = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder2, [{ stopReason: 'stop', content: [text('waiting now')] }]),
      workspace: folder2,
      batchId: BATCH,
      keepOpenMs: 120_000,
    }),
  );
  const waitingRow = page.locator(`tr[data-job-id="${waiting.workflowId}"]`);
  await waitingRow.locator('td.phase', { hasText: 'waiting' }).waitFor({ timeout: 20_000 });
  await page.locator('.chip[data-phase="waiting"]', { hasText: /^waiting [1-9]/ }).waitFor();

  await saveScreenshot('console-jobs.png');

  await page.selectOption('#phase-filter', 'done');
  await page.waitForURL(/phase=done/);
  await waitingRow.waitFor({ state: 'detached' });
  await expect(row.isVisible()).resolves.toBe(true);
  for (const job of [...keptOpen, waiting]) await job.handle.terminate();
});
