// Every call waiting for approval across running jobs (R22), read again every few seconds,
// each with Approve and Deny buttons.
import { getJson } from './api.js';
import { ApprovalList } from './approval-list.js';

const REFRESH_MS = 2000;

const batchFilter = document.getElementById('batch-filter');
const listError = document.getElementById('list-error');
const noApprovals = document.getElementById('no-approvals');
const count = document.getElementById('approval-count');
const approvals = new ApprovalList(
  document.getElementById('approvals'),
  document.getElementById('approval-message'),
  { showJob: true, onDecided: () => void refresh() },
);

function currentBatch() {
  return new URLSearchParams(location.search).get('batch') ?? '';
}

let refreshing = false;
let refreshAgain = false;

async function refresh() {
  // One read at a time; a change meanwhile is read right after.
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  refreshAgain = false;
  const batch = currentBatch();
  const params = new URLSearchParams();
  if (batch) params.set('batch', batch);
  try {
    const answer = await getJson(`/api/approvals?${params}`);
    approvals.show(answer.approvals, answer.now);
    count.textContent = `(${answer.approvals.length} waiting)`;
    noApprovals.hidden = answer.approvals.length > 0;
    listError.hidden = true;
  } catch (error) {
    listError.textContent = error.message;
    listError.hidden = false;
  } finally {
    refreshing = false;
  }
  if (refreshAgain) await refresh();
}

batchFilter.value = currentBatch();
document.getElementById('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  const batch = batchFilter.value.trim();
  history.replaceState(
    null,
    '',
    batch ? `/approvals?${new URLSearchParams({ batch })}` : '/approvals',
  );
  void refresh();
});
void refresh();
setInterval(() => void refresh(), REFRESH_MS);
