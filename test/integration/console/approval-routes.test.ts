/**
 * The console's approval API (`dar ui`, R22) over a real Temporal dev server, worker and job
 * store: pending calls listed across jobs and per job, a decision needs the token and the
 * console's Origin, a second decision of the same call answers 409 and an unknown call 404,
 * each with a message the page shows.
 */
import type { AgentJob } from '../../../src/client/job-client.js';
import type { PolicyRule } from '../../../src/policy/policy-file.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { bearer, consoleRequest, useConsoleServer } from '../../support/console-harness.js';

const server = useAgentTestServer('console-approval-routes');
const web = useConsoleServer(server);

const rule: PolicyRule = {
  tool: 'bash',
  reason: 'shell commands need a look',
  approve: true,
};

interface ApprovalRow {
  jobId: string;
  toolCallId: string;
  toolName: string;
  args: string;
  reason: string;
  requestedAt: number;
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The console's own origin, as the browser sends it with a POST from its pages. */
function sameOrigin(): Record<string, string> {
  return { ...bearer(web.console), Origin: web.console.url.replace(/\/$/, '') };
}

function decide(job: string, call: string, decision: string, body?: unknown, origin = true) {
  return consoleRequest(
    web.console,
    `/api/jobs/${encodeURIComponent(job)}/approvals/${encodeURIComponent(call)}/${decision}`,
    {
      method: 'POST',
      headers: {
        ...(origin ? sameOrigin() : bearer(web.console)),
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
  );
}

async function jobApprovals(job: AgentJob): Promise<ApprovalRow[]> {
  const answer = await consoleRequest(
    web.console,
    `/api/jobs/${encodeURIComponent(job.workflowId)}/approvals`,
    { headers: bearer(web.console) },
  );
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { approvals: ApprovalRow[] }).approvals;
}

function errorOf(body: string): string {
  return (JSON.parse(body) as { error: string }).error;
}

let job: AgentJob;

beforeAll(async () => {
  const folder = temporaryFolder('dar-console-approvals-');
  job = await startTestJob(
    server,
    jobInput({
      model: scriptedModel(folder, [
        {
          stopReason: 'toolUse',
          content: [toolCall('risky', 'bash', { command: 'echo <b>risky</b> > risky.txt' })],
        },
        { stopReason: 'stop', content: [text('done')] },
      ]),
      workspace: folder,
      policy: { rules: [rule] },
      // Still running once the call is decided: a second decision meets the job, not its end.
      keepOpenMs: 120_000,
    }),
  );
});

afterAll(async () => {
  await job?.handle.terminate().catch(() => undefined);
});

test("R22: a job's waiting call is listed on its own and across jobs, with tool, arguments and reason", async () => {
  const [own] = await eventually(async () => {
    const rows = await jobApprovals(job);
    return rows.length > 0 ? rows : undefined;
  });
  expect(own).toMatchObject({
    jobId: job.workflowId,
    toolCallId: 'risky',
    toolName: 'bash',
    reason: 'shell commands need a look',
    args: JSON.stringify({ command: 'echo <b>risky</b> > risky.txt' }),
  });
  // Across jobs, found through visibility (DarPhase approval) a moment later.
  const listed = await eventually(async () => {
    const answer = await consoleRequest(web.console, '/api/approvals', {
      headers: bearer(web.console),
    });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body) as { now: number; approvals: ApprovalRow[] };
    expect(body.now).toBeGreaterThanOrEqual(own?.requestedAt ?? 0);
    return body.approvals.find((row) => row.jobId === job.workflowId);
  });
  expect(listed).toMatchObject({ toolCallId: 'risky', reason: 'shell commands need a look' });
});

test('a decision without the console Origin answers 403 and decides nothing', async () => {
  const answer = await decide(job.workflowId, 'risky', 'approve', {}, false);
  expect(answer.status).toBe(403);
  const anonymous = await consoleRequest(
    web.console,
    `/api/jobs/${encodeURIComponent(job.workflowId)}/approvals/risky/approve`,
    { method: 'POST', headers: { Origin: web.console.url.replace(/\/$/, '') } },
  );
  expect(anonymous.status).toBe(401);
  expect((await jobApprovals(job)).map((row) => row.toolCallId)).toEqual(['risky']);
});

test('an unknown call or job answers 404 with a message; a bad note 400', async () => {
  const unknownCall = await decide(job.workflowId, 'no-such-call', 'approve');
  expect(unknownCall.status).toBe(404);
  expect(errorOf(unknownCall.body)).toMatch(/has no call no-such-call waiting for approval/);
  const unknownJob = await decide('no-such-job', 'risky', 'deny');
  expect(unknownJob.status).toBe(404);
  expect(JSON.parse(unknownJob.body)).toEqual({ error: 'No job with id no-such-job' });
  const badNote = await decide(job.workflowId, 'risky', 'deny', { note: 42 });
  expect(badNote.status).toBe(400);
  expect((await jobApprovals(job)).map((row) => row.toolCallId)).toEqual(['risky']);
});

test('R22: the first decision is recorded (by console, with its note); a second one answers 409', async () => {
  const first = await decide(job.workflowId, 'risky', 'deny', { note: 'not on a Friday' });
  expect(first.status).toBe(200);
  expect(JSON.parse(first.body)).toMatchObject({
    jobId: job.workflowId,
    toolCallId: 'risky',
    outcome: { decision: 'deny', source: 'operator', by: 'console', note: 'not on a Friday' },
  });
  const second = await decide(job.workflowId, 'risky', 'approve');
  expect(second.status).toBe(409);
  expect(errorOf(second.body)).toMatch(/was already denied by console/);
  const third = await decide(job.workflowId, 'risky', 'deny');
  expect(third.status).toBe(409);

  expect(await jobApprovals(job)).toEqual([]);
  const events = await eventually(async () => {
    const all = await job.allEvents();
    return all.some((event) => event.type === 'agent_end') ? all : undefined;
  });
  const decided = events.filter((event) => event.type === 'approval_decided');
  expect(decided).toEqual([
    expect.objectContaining({ toolCallId: 'risky', decision: 'deny', by: 'console' }),
  ]);
});
