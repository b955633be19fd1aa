// One job: its status (read again every few seconds), its transcript and events as they are
// stored, with the answer being written and a running tool's output live (a Server-Sent Events
// stream; a reconnect resumes from the last message's id), its calls waiting for approval, and
// a button that cancels it.
import { getJson, jobPath, post } from './api.js';
import { ApprovalList } from './approval-list.js';
import { element, replaceChildren } from './dom.js';
import { formatCost, formatWorkflowStatus, orDash } from './format.js';
import { Timeline } from './timeline.js';

const REFRESH_MS = 2000;

const jobId = new URLSearchParams(location.search).get('id') ?? '';
const statusList = document.getElementById('job-status');
const cancelButton = document.getElementById('cancel-button');
const actionMessage = document.getElementById('action-message');
const jobError = document.getElementById('job-error');
const streamState = document.getElementById('stream-state');
const timeline = new Timeline(document.getElementById('timeline'));
const approvalSection = document.getElementById('job-approvals');
const approvalMessage = document.getElementById('approval-message');
const approvals = new ApprovalList(document.getElementById('approvals'), approvalMessage, {
  showJob: false,
  onDecided: () => void refreshSummary(),
});

document.getElementById('job-title').textContent = jobId;
document.title = `${jobId} · dar console`;

function statusRow(name, value, className) {
  return [
    element('dt', { text: name }),
    element('dd', { className, text: orDash(value), attributes: { 'data-field': name } }),
  ];
}

function showSummary(summary) {
  const status = summary.status;
  const workflow = formatWorkflowStatus(summary.workflowStatus);
  const rows = [
    statusRow('workflow', workflow, `workflow-status status-${workflow.replaceAll(' ', '-')}`),
    statusRow(
      'phase',
      status
        ? `${status.phase}${status.cancelled ? ' (cancelled)' : ''}`
        : summary.dataDeleted
          ? 'data deleted from the job store (dar prune)'
          : 'starting',
    ),
    statusRow('turns', status?.turns),
    statusRow('events', status?.lastSeq),
    statusRow(
      'tokens',
      status ? `${status.tokens.input} in, ${status.tokens.output} out` : undefined,
    ),
    statusRow('cost', status ? formatCost(status.costUsd) : undefined),
    statusRow('batch', summary.batch),
    statusRow('started', new Date(summary.startedAt).toLocaleString()),
  ];
  if (summary.closedAt) rows.push(statusRow('closed', new Date(summary.closedAt).toLocaleString()));
  if (status?.budget) rows.push(statusRow('budget', status.budget));
  if (status?.budgetStop) rows.push(statusRow('stopped by', status.budgetStop, 'error'));
  if (status?.stopReason) rows.push(statusRow('stopped', status.stopReason));
  if (status?.errorMessage) rows.push(statusRow('error', status.errorMessage, 'error'));
  replaceChildren(statusList, ...rows.flat());
  cancelButton.disabled = !summary.running;
}

/**
 * The job's waiting calls, asked only while its phase is `approval` (the query needs a worker).
 * The section shows while some wait or a decision's outcome shows.
 */
async function refreshApprovals(summary) {
  let answer = { approvals: [], now: 0 };
  if (summary.running && summary.status?.phase === 'approval') {
    try {
      answer = await getJson(jobPath(jobId, '/approvals'));
    } catch (error) {
      approvals.say(`Reading the calls waiting for approval failed: ${error.message}`, true);
    }
  }
  approvals.show(answer.approvals, answer.now);
  approvalSection.hidden = answer.approvals.length === 0 && approvalMessage.hidden;
}

async function refreshSummary() {
  try {
    const summary = await getJson(jobPath(jobId));
    showSummary(summary);
    await refreshApprovals(summary);
    jobError.hidden = true;
  } catch (error) {
    jobError.textContent = error.message;
    jobError.hidden = false;
  }
}

function followEvents() {
  const source = new EventSource(jobPath(jobId, '/events'));
  source.addEventListener('open', () => {
    streamState.textContent = '(live)';
  });
  source.addEventListener('job-event', (message) => {
    timeline.add(JSON.parse(message.data));
  });
  source.addEventListener('live-event', (message) => {
    timeline.addLive(JSON.parse(message.data));
  });
  source.addEventListener('stream-error', (message) => {
    streamState.textContent = `(reading events failed: ${JSON.parse(message.data).error}; retrying)`;
  });
  source.addEventListener('error', () => {
    streamState.textContent = '(reconnecting…)';
  });
}

cancelButton.addEventListener('click', async () => {
  if (!confirm(`Cancel job ${jobId}? Its running tools are stopped.`)) return;
  cancelButton.disabled = true;
  try {
    await post(jobPath(jobId, '/cancel'));
    actionMessage.textContent = 'Cancellation requested.';
  } catch (error) {
    actionMessage.textContent = `Cancel failed: ${error.message}`;
    cancelButton.disabled = false;
  }
  void refreshSummary();
});

void refreshSummary();
setInterval(() => void refreshSummary(), REFRESH_MS);
followEvents();
