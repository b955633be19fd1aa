/**
 * The operator console's HTTP API (`dar ui`) over a real Temporal dev server and job store:
 * every request needs the access token, a request that changes something needs the console's
 * own Origin too; job text reaches pages only as JSON (never markup); the event stream carries
 * a job's events (R3's order, R21's cancel end) and cannot be broken by what a model writes.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { EventView } from '../../../src/console/event-view.js';
import type { FileJobStore } from '../../../src/store/file/file-job-store.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import {
  bearer,
  consoleRequest,
  readEventStream,
  useConsoleServer,
  type StreamMessage,
} from '../../support/console-harness.js';

const server = useAgentTestServer('console-routes');
const web = useConsoleServer(server);

const MODEL_MARKUP = '<script>window.__xss = 1</script>';
// A line break then what would be a new event, were the data not one JSON line.
const FINAL_TEXT = '<img src=x onerror="window.__xss = 4"> done\n\nevent: injected\ndata: {}';
const TOOL_MARKUP = '<img src=x onerror="window.__xss = 2">';
const BATCH = `console-batch-${process.pid}`;

let finishedJob: AgentJob;

function jobEvents(messages: StreamMessage[]): EventView[] {
  return messages
    .filter((message) => message.event === 'job-event')
    .map((message) => JSON.parse(message.data) as EventView);
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  const folder = temporaryFolder('dar-console-');
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        text(MODEL_MARKUP),
        toolCall('markup-call', 'bash', { command: `printf '%s\\n' '${TOOL_MARKUP}'` }),
      ],
      usage: { input: 10, output: 5, costUsd: 0.25 },
    },
    {
      stopReason: 'stop',
      content: [text(FINAL_TEXT)],
      usage: { input: 20, output: 5, costUsd: 0.5 },
    },
  ]);
  finishedJob = await startTestJob(server, jobInput({ model, workspace: folder, batchId: BATCH }));
  await finishedJob.result();
});

describe('access', () => {
  test('without the token, the API and the pages answer 401', async () => {
    const api = await consoleRequest(web.console, '/api/jobs');
    expect(api.status).toBe(401);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
    const page = await consoleRequest(web.console, '/');
    expect(page.status).toBe(401);
    const wrong = await consoleRequest(web.console, '/api/jobs', {
      headers: { Authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
  });

  test('the login address sets an HttpOnly, SameSite=Strict cookie and drops the token from the address', async () => {
    const login = await consoleRequest(
      web.console,
      `/?token=${encodeURIComponent(web.console.token)}&phase=done`,
    );
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/?phase=done');
    const cookie = login.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const pair = cookie.split(';')[0] ?? '';
    const page = await consoleRequest(web.console, '/?phase=done', { headers: { Cookie: pair } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const api = await consoleRequest(web.console, '/api/jobs', { headers: { Cookie: pair } });
    expect(api.status).toBe(200);

    const wrong = await consoleRequest(web.console, '/?token=guessed-token-123456');
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  test('every answer forbids scripts from elsewhere, inline scripts and content sniffing', async () => {
    for (const path of ['/', '/job', '/api/jobs', '/job-page.js']) {
      const answer = await consoleRequest(web.console, path, { headers: bearer(web.console) });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  test('only the console files are served: no path reaches another file', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/package.json', '/.env']) {
      const answer = await consoleRequest(web.console, path, { headers: bearer(web.console) });
      expect(answer.status).toBe(404);
    }
  });
});

describe('jobs list', () => {
  test('lists the job with its phase, turns, cost and batch; filters by batch and phase', async () => {
    const id = finishedJob.workflowId;
    const answer = await eventually(async () => {
      const response = await consoleRequest(web.console, `/api/jobs?batch=${BATCH}&phase=done`, {
        headers: bearer(web.console),
      });
      const body = JSON.parse(response.body) as {
        jobs: Record<string, unknown>[];
        counts: { all: number; byPhase: Record<string, number> };
        phases: string[];
      };
      // Temporal's list filter sees search attributes a moment after they change.
      const closed = body.jobs[0]?.workflowStatus === 'COMPLETED';
      return closed && body.counts.byPhase.done === 1 ? body : undefined;
    });
    expect(answer.phases).toEqual(['running', 'approval', 'waiting', 'done']);
    expect(answer.counts.byPhase.running).toBe(0);
    expect(answer.jobs[0]).toMatchObject({
      id,
      workflowStatus: 'COMPLETED',
      phase: 'done',
      turns: 2,
      costUsd: 0.75,
      batch: BATCH,
    });
    expect(answer.counts.all).toBe(1);

    const otherBatch = await consoleRequest(web.console, '/api/jobs?batch=no-such-batch', {
      headers: bearer(web.console),
    });
    expect(JSON.parse(otherBatch.body)).toMatchObject({ jobs: [], counts: { all: 0 } });
    const otherPhase = await consoleRequest(web.console, `/api/jobs?batch=${BATCH}&phase=tools`, {
      headers: bearer(web.console),
    });
    expect(JSON.parse(otherPhase.body)).toMatchObject({ jobs: [] });
  });

  test('a phase or batch id that is not one is refused with 400 (nothing reaches the list filter)', async () => {
    for (const query of ["phase=done' OR '1'='1", 'phase=bogus', "batch=x' OR WorkflowId != '"]) {
      const answer = await consoleRequest(web.console, `/api/jobs?${query}`, {
        headers: bearer(web.console),
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toHaveProperty('error');
    }
  });
});

describe('one job', () => {
  test('its summary: workflow status, phase, turns, cost; an unknown job is a JSON 404', async () => {
    const answer = await consoleRequest(
      web.console,
      `/api/jobs/${encodeURIComponent(finishedJob.workflowId)}`,
      { headers: bearer(web.console) },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      id: finishedJob.workflowId,
      workflowStatus: 'COMPLETED',
      running: false,
      batch: BATCH,
      status: { phase: 'done', turns: 2, costUsd: 0.75, cancelled: false },
    });
    const unknown = await consoleRequest(
      web.console,
      '/api/jobs/%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      {
        headers: bearer(web.console),
      },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
  });

  test('a job whose store data was deleted (dar prune) says so; a finished one does not', async () => {
    const folder = temporaryFolder('dar-console-pruned-');
    const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('short')] }]);
    const pruned = await startTestJob(server, jobInput({ model, workspace: folder }));
    await pruned.result();
    const maintenance = server.store.maintenance?.();
    if (!maintenance) throw new Error('the test store has no maintenance');
    await maintenance.deleteJobStreams(pruned.workflowId);
    await maintenance.deleteRecord(JOB_STATUS_RECORD, pruned.workflowId);

    const summaryOf = async (id: string) =>
      JSON.parse(
        (
          await consoleRequest(web.console, `/api/jobs/${encodeURIComponent(id)}`, {
            headers: bearer(web.console),
          })
        ).body,
      ) as { dataDeleted: boolean; status?: unknown };
    expect(await summaryOf(pruned.workflowId)).toMatchObject({ dataDeleted: true });
    expect((await summaryOf(pruned.workflowId)).status).toBeUndefined();
    expect(await summaryOf(finishedJob.workflowId)).toMatchObject({ dataDeleted: false });
  });

  test("a job whose stored answer is missing: its event stream ends with a stream-error that says the store does not hold the job's data", async () => {
    const folder = temporaryFolder('dar-console-lost-');
    // Text of its own, so that its answer is an object no other job shares.
    const model = scriptedModel(folder, [
      { stopReason: 'stop', content: [text(`lost ${randomUUID()}`)] },
    ]);
    const lost = await startTestJob(server, jobInput({ model, workspace: folder }));
    const ref = (await lost.result()).finalMessageRef as string;
    const hex = ref.slice('sha256:'.length);
    const store = server.store as FileJobStore;
    rmSync(join(store.folder, 'objects', hex.slice(0, 2), `${hex}.json`));

    const stream = await readEventStream(
      web.console,
      `/api/jobs/${encodeURIComponent(lost.workflowId)}/events`,
      bearer(web.console),
      (messages) => messages.some((message) => message.event === 'stream-error'),
    );
    const failure = stream.messages.find((message) => message.event === 'stream-error');
    const { error } = JSON.parse(failure?.data ?? '{}') as { error?: string };
    expect(error).toContain(`No object is stored under ${ref}`);
    expect(error).toContain("this job store does not hold the job's data");
  });

  test('R3: the event stream carries the events in order; model and tool markup arrive as JSON text', async () => {
    const stream = await readEventStream(
      web.console,
      `/api/jobs/${encodeURIComponent(finishedJob.workflowId)}/events`,
      bearer(web.console),
      (messages) => jobEvents(messages).some((event) => event.type === 'agent_end'),
    );
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = jobEvents(stream.messages);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    // Each id is the cursor of both streams (SEQ:LIVESEQ) after the message.
    expect(stream.messages.map((message) => message.id?.split(':')[0])).toEqual(
      events.map((event) => String(event.seq)),
    );
    expect(events[0]?.type).toBe('agent_start');
    expect(events.at(-1)?.type).toBe('agent_end');
    // No frame was cut short by the line breaks in the model's text.
    expect(stream.messages.every((message) => message.event === 'job-event')).toBe(true);

    const texts = JSON.stringify(events);
    expect(texts).toContain(JSON.stringify(MODEL_MARKUP).slice(1, -1));
    expect(texts).toContain(JSON.stringify(FINAL_TEXT).slice(1, -1));
    const toolEnd = events.find((event) => event.type === 'tool_execution_end');
    expect(toolEnd).toMatchObject({
      toolCallId: 'markup-call',
      isError: false,
      result: { content: [{ type: 'text', text: `${TOOL_MARKUP}\n` }] },
    });
    // What other events carry again is left out.
    expect(events.find((event) => event.type === 'agent_end')).not.toHaveProperty('messages');
  });

  test('a reconnecting page gets the events after the last one it saw (Last-Event-ID)', async () => {
    const stream = await readEventStream(
      web.console,
      `/api/jobs/${encodeURIComponent(finishedJob.workflowId)}/events`,
      { ...bearer(web.console), 'Last-Event-ID': '3' },
      (messages) => jobEvents(messages).length >= 2,
    );
    expect(
      jobEvents(stream.messages)
        .map((event) => event.seq)
        .slice(0, 2),
    ).toEqual([4, 5]);
  });
});

describe('cancel', () => {
  let running: AgentJob;

  beforeAll(async () => {
    const folder = temporaryFolder('dar-console-');
    const model = scriptedModel(folder, [
      { stopReason: 'toolUse', content: [toolCall('sleeper', 'bash', { command: 'sleep 60' })] },
      { stopReason: 'stop', content: [text('never reached')] },
    ]);
    running = await startTestJob(server, jobInput({ model, workspace: folder }));
    await eventually(async () =>
      (await running.events(0)).find((event) => event.type === 'tool_execution_start'),
    );
  });

  afterAll(async () => {
    await running.handle.terminate().catch(() => undefined);
  });

  const cancelPath = () => `/api/jobs/${encodeURIComponent(running.workflowId)}/cancel`;

  test('a cancel without an Origin header, or from another origin, is refused with 403', async () => {
    const withoutOrigin = await consoleRequest(web.console, cancelPath(), {
      method: 'POST',
      headers: bearer(web.console),
    });
    expect(withoutOrigin.status).toBe(403);
    const elsewhere = await consoleRequest(web.console, cancelPath(), {
      method: 'POST',
      headers: { ...bearer(web.console), Origin: 'http://attacker.example' },
    });
    expect(elsewhere.status).toBe(403);
    const host = new URL(web.console.url).host;
    const noToken = await consoleRequest(web.console, cancelPath(), {
      method: 'POST',
      headers: { Origin: `http://${host}` },
    });
    expect(noToken.status).toBe(401);
    expect((await running.handle.describe()).status.name).toBe('RUNNING');
  });

  test('a GET cannot cancel (405)', async () => {
    const answer = await consoleRequest(web.console, cancelPath(), {
      headers: bearer(web.console),
    });
    expect(answer.status).toBe(405);
  });

  test('R21: a cancel with the token and the console Origin aborts the job; a second answers 409', async () => {
    const origin = `http://${new URL(web.console.url).host}`;
    const answer = await consoleRequest(web.console, cancelPath(), {
      method: 'POST',
      headers: { ...bearer(web.console), Origin: origin },
    });
    expect(answer.status).toBe(202);
    await expect(running.handle.result()).rejects.toThrow();
    expect((await running.handle.describe()).status.name).toBe('CANCELLED');
    const events = await running.allEvents();
    expect(events.find((event) => event.type === 'tool_execution_end')).toMatchObject({
      isError: true,
    });
    expect(events.at(-1)?.type).toBe('agent_end');

    const again = await consoleRequest(web.console, cancelPath(), {
      method: 'POST',
      headers: { ...bearer(web.console), Origin: origin },
    });
    expect(again.status).toBe(409);
  });
});
