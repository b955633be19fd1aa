// The jobs list: the newest jobs of the filter, and how many are in each phase, read again
// every few seconds.
import { getJson, jobPageHref } from './api.js';
import { element, replaceChildren } from './dom.js';
import { formatAge, formatCost, formatWorkflowStatus, orDash } from './format.js';

const REFRESH_MS = 2000;

const phaseFilter = document.getElementById('phase-filter');
const batchFilter = document.getElementById('batch-filter');
const rows = document.getElementById('job-rows');
const counts = document.getElementById('counts');
const listError = document.getElementById('list-error');
const noJobs = document.getElementById('no-jobs');

/** The filter in the page's address (so that a reload or a shared link keeps it). */
function currentFilter() {
  const params = new URLSearchParams(location.search);
  return { phase: params.get('phase') ?? '', batch: params.get('batch') ?? '' };
}

function setFilter(filter) {
  const params = new URLSearchParams();
  if (filter.phase) params.set('phase', filter.phase);
  if (filter.batch) params.set('batch', filter.batch);
  const search = params.toString();
  history.replaceState(null, '', search ? `/?${search}` : '/');
  void refresh();
}

function showPhases(phases, selected) {
  if (phaseFilter.options.length > 1) return;
  for (const phase of phases)
    phaseFilter.append(element('option', { text: phase, attributes: { value: phase } }));
  phaseFilter.value = selected;
}

function countChip(label, count, phase) {
  const chip = element('button', {
    className: 'chip',
    text: `${label} ${count}`,
    attributes: { type: 'button', 'data-phase': phase },
  });
  chip.addEventListener('click', () => {
    phaseFilter.value = phase;
    setFilter({ phase, batch: batchFilter.value.trim() });
  });
  return chip;
}

function showCounts(phases, phaseCounts) {
  replaceChildren(
    counts,
    countChip('all', phaseCounts.all, ''),
    ...phases.map((phase) => countChip(phase, phaseCounts.byPhase[phase] ?? 0, phase)),
  );
}

function jobRow(job) {
  const link = element('a', { text: job.id, attributes: { href: jobPageHref(job.id) } });
  const status = formatWorkflowStatus(job.workflowStatus);
  return element(
    'tr',
    { attributes: { 'data-job-id': job.id } },
    element('td', { className: 'job-id' }, link),
    element('td', {
      className: `workflow-status status-${status.replaceAll(' ', '-')}`,
      text: status,
    }),
    element('td', { className: 'phase', text: orDash(job.phase) }),
    element('td', { className: 'number', text: orDash(job.turns) }),
    element('td', { className: 'number', text: formatCost(job.costUsd) }),
    element('td', { text: orDash(job.batch) }),
    element('td', { className: 'number', text: formatAge(job.ageMs) }),
  );
}

let refreshing = false;
let refreshAgain = false;

async function refresh() {
  // One read at a time; a filter changed meanwhile is read right after.
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  refreshAgain = false;
  const filter = currentFilter();
  const params = new URLSearchParams();
  if (filter.phase) params.set('phase', filter.phase);
  if (filter.batch) params.set('batch', filter.batch);
  try {
    const answer = await getJson(`/api/jobs?${params}`);
    showPhases(answer.phases, filter.phase);
    showCounts(answer.phases, answer.counts);
    replaceChildren(rows, ...answer.jobs.map(jobRow));
    noJobs.hidden = answer.jobs.length > 0;
    listError.hidden = true;
  } catch (error) {
    listError.textContent = error.message;
    listError.hidden = false;
  } finally {
    refreshing = false;
  }
  if (refreshAgain) await refresh();
}

const initial = currentFilter();
batchFilter.value = initial.batch;
document.getElementById('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  setFilter({ phase: phaseFilter.value, batch: batchFilter.value.trim() });
});
phaseFilter.addEventListener('change', () =>
  setFilter({ phase: phaseFilter.value, batch: batchFilter.value.trim() }),
);
void refresh();
setInterval(() => void refresh(), REFRESH_MS);
