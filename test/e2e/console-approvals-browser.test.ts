/**
 * Approvals in the operator console (`dar ui`, R22) in headless Chromium, over a real Temporal
 * dev server, worker and job store: a job waiting for approval is approved from its page and
 * its tool runs and the job ends; another is denied from the approvals page with a note, which
 * the model reads; the approval events read as sentences in the job's events.
 *
 * With DAR_CONSOLE_SCREENSHOTS=DIR, the approvals page is also saved as a PNG file in DIR.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentJob } from '../../src/client/job-client.js';
import type { Message, ToolResultMessage } from '../../src/core/index.js';
import type { PolicyRule } from '../../src/policy/policy-file.js';
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

const server = useAgentTestServer('console-approvals-browser');
const web = useConsoleServer(server);
const chromium = useChromium();
const screenshots = process.env.DAR_CONSOLE_SCREENSHOTS;

const rule: PolicyRule = {
  tool: 'bash',
  argument: 'command',
  pattern: 'deploy',
  reason: 'deploys need a second pair of eyes',
  approve: true,
};

// (No quotes: the command holds it in a single-quoted shell word, shown as JSON.)
const MARKUP_IN_ARGUMENTS = '<img src=x onerror=window.__injected=1>';

let page: Page;

function jobHref(job: AgentJob): string {
  return `${web.console.url}job?${new URLSearchParams({ id: job.workflowId }).toString()}`;
}

/** A job whose first turn asks for one bash call that needs approval. */
function startDeployJob(
  folder: string,
  command: string,
  finalText: string,
  keepOpenMs?: number,
): Promise<AgentJob> {
  return startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        { stopReason: 'toolUse', content: [toolCall('deploy-call', 'bash', { command })] },
        { stopReason: 'stop', content: [text(finalText)] },
      ]),
      workspace: folder,
      policy: { rules: [rule] },
      ...(keepOpenMs === undefined ? {} : { keepOpenMs }),
    }),
  );
}

function toolResultText(messages: Message[], id: string): { isError: boolean; text: string } {
  const result = messages.find(
    (message): message is ToolResultMessage =>
      message.role === 'toolResult' && message.toolCallId === id,
  );
  const first = result?.content[0];
  return { isError: result?.isError ?? false, text: first?.type === 'text' ? first.text : '' };
}

beforeAll(async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  await page.goto(web.console.loginUrl);
});

test('R22: Approve on the page of a job waiting for approval runs the tool and the job ends', async () => {
  const folder = temporaryFolder('dar-console-approve-');
  const job = await startDeployJob(folder, 'echo deploy done > deployed.txt', 'Deployed.');
  await page.goto(jobHref(job));
  const card = page.locator('#approvals .approval[data-tool-call-id="deploy-call"]');
  await card.waitFor({ timeout: 30_000 });
  await expect(card.locator('[data-field="reason"]').textContent()).resolves.toBe(
    'deploys need a second pair of eyes',
  );
  await expect(card.locator('.tool-arguments').textContent()).resolves.toContain(
    '"command": "echo deploy done > deployed.txt"',
  );
  await page
    .locator('[data-type="approval_requested"]', { hasText: 'deploy-call waits for approval' })
    .waitFor();
  // Nothing ran before the decision.
  expect(existsSync(join(folder, 'deployed.txt'))).toBe(false);

  await card.locator('button.approve').click();
  await page.locator('#approval-message', { hasText: 'Approved bash call deploy-call' }).waitFor();
  await page
    .locator('[data-type="approval_decided"]', { hasText: 'deploy-call approved by console' })
    .waitFor();
  const toolCard = page.locator('.tool-call[data-tool-call-id="deploy-call"]');
  await toolCard.locator('.tool-result', { hasText: '(no output)' }).waitFor();
  await expect(toolCard.getAttribute('class')).resolves.toMatch(/\bok\b/);
  await page.locator('.assistant', { hasText: 'Deployed.' }).waitFor();
  await page.locator('[data-type="agent_end"]').waitFor();
  await page.locator('[data-field="workflow"]', { hasText: 'completed' }).waitFor();
  await card.waitFor({ state: 'detached' });
  expect(readFileSync(join(folder, 'deployed.txt'), 'utf8')).toBe('deploy done\n');
});

test('R22: Deny with a note on the approvals page: the tool never runs and the model reads the note', async () => {
  const folder = temporaryFolder('dar-console-deny-');
  const job = await startDeployJob(
    folder,
    `echo '${MARKUP_IN_ARGUMENTS}' deploy > denied.txt \u202e#txt.olleh`,
    'Understood, not deploying.',
  );
  await page.goto(`${web.console.url}approvals`);
  // Every job's waiting calls, found through visibility: the header links here.
  await expect(page.locator('header nav a[href="/approvals"]').count()).resolves.toBe(1);
  const card = page.locator(`.approval[data-job-id="${job.workflowId}"]`);
  await card.waitFor({ timeout: 30_000 });
  await expect(card.locator('[data-field="job"] a').textContent()).resolves.toBe(job.workflowId);
  await expect(card.locator('[data-field="tool"]').textContent()).resolves.toBe('bash');
  await expect(card.locator('[data-field="waiting"]').textContent()).resolves.toMatch(/^\d+s$/);
  await expect(card.locator('[data-field="deadline"]').textContent()).resolves.toBe('none');
  // Arguments with markup show as text; nothing of it runs.
  const shownArguments = await card.locator('.tool-arguments').textContent();
  expect(shownArguments).toContain(MARKUP_IN_ARGUMENTS);
  // A right-to-left override is named, not applied: the command reads as it would run.
  expect(shownArguments).toContain('denied.txt <U+202E>#txt.olleh');
  expect(shownArguments).not.toContain('\u202e');
  await expect(page.locator('#approvals img').count()).resolves.toBe(0);
  await expect(page.evaluate('window.__injected')).resolves.toBe(undefined);
  if (screenshots) {
    await page.screenshot({ path: join(screenshots, 'console-approvals.png'), fullPage: true });
  }

  await card.locator('.approval-note').fill('not on a Friday');
  await card.locator('button.deny').click();
  await page.locator('#approval-message', { hasText: 'Denied bash call deploy-call' }).waitFor();
  await card.waitFor({ state: 'detached' });

  const result = await job.result();
  expect(toolResultText(result.messages, 'deploy-call')).toEqual({
    isError: true,
    text: 'Tool bash was denied by console: not on a Friday',
  });
  expect(existsSync(join(folder, 'denied.txt'))).toBe(false);
  await page.goto(jobHref(job));
  await page
    .locator('[data-type="approval_decided"]', {
      hasText: 'deploy-call denied by console: not on a Friday',
    })
    .waitFor();
  await page.locator('.assistant', { hasText: 'Understood, not deploying.' }).waitFor();
});

test('R22: a call decided elsewhere meanwhile: the click answers with the refusal on the page', async () => {
  const folder = temporaryFolder('dar-console-twice-');
  // Kept open after its run: the second decision meets the job, not its end.
  const job = await startDeployJob(folder, 'echo deploy > twice.txt', 'Done.', 120_000);
  await page.goto(jobHref(job));
  const card = page.locator('#approvals .approval[data-tool-call-id="deploy-call"]');
  await card.waitFor({ timeout: 30_000 });
  // Another operator decides first (as `dar deny` would).
  await page.evaluate(
    `fetch(${JSON.stringify(`/api/jobs/${encodeURIComponent(job.workflowId)}/approvals/deploy-call/deny`)}, { method: 'POST' })`,
  );
  await card.locator('button.approve').click();
  await page.locator('#approval-message.error', { hasText: /already denied by console/ }).waitFor();
  await page.locator('.assistant', { hasText: 'Done.' }).waitFor();
  expect(existsSync(join(folder, 'twice.txt'))).toBe(false);
  await job.handle.terminate();
});
