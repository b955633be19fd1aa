// Calls waiting for approval (R22), each with its job, tool, arguments, reason, age and
// deadline, a note box and Approve / Deny buttons. Used by the approvals page (every job) and
// by a job's page (its own calls). All job text is set as text, its control characters named.
import { jobPageHref, jobPath, postJson } from './api.js';
import { element, jsonText } from './dom.js';
import { formatAge, visibleText } from './format.js';

/** The arguments (kept as JSON text by the job) indented when they parse, controls named. */
function argumentsText(args) {
  try {
    return visibleText(jsonText(JSON.parse(args)));
  } catch {
    return visibleText(args ?? '');
  }
}

function deadlineText(call, now) {
  if (call.deadline === undefined) return 'none';
  const when = new Date(call.deadline).toLocaleString();
  const left = call.deadline - now;
  const then = call.onTimeout ?? 'deny';
  return left > 0 ? `${when} (in ${formatAge(left)}, then ${then})` : `${when} (passed: ${then})`;
}

function field(name, value, className) {
  return element(
    'div',
    { className: 'approval-field' },
    element('dt', { text: name }),
    element('dd', { className, text: value, attributes: { 'data-field': name } }),
  );
}

function keyOf(call) {
  return `${call.jobId}\u0000${call.toolCallId}`;
}

export class ApprovalList {
  /**
   * `list`: the element the cards go in; `message`: where a decision's outcome or refusal is
   * shown; `options.showJob`: whether each card names its job (the approvals page);
   * `options.onDecided`: called after each decision, refused or not (to read again).
   */
  constructor(list, message, options = {}) {
    this.list = list;
    this.message = message;
    this.showJob = options.showJob ?? true;
    this.onDecided = options.onDecided ?? (() => {});
    /** Cards by job and call id: kept across reads so that a note being typed stays. */
    this.cards = new Map();
  }

  /** Shows `approvals` (the API's answer) as they are now: new cards added, gone ones removed. */
  show(approvals, now) {
    const seen = new Set();
    for (const call of approvals) {
      const key = keyOf(call);
      seen.add(key);
      let entry = this.cards.get(key);
      if (!entry) {
        entry = this.card(call);
        this.cards.set(key, entry);
      }
      entry.age.textContent = formatAge(now - call.requestedAt);
      entry.deadline.textContent = deadlineText(call, now);
      // Appending keeps the order of the answer (oldest first).
      this.list.append(entry.node);
    }
    for (const [key, entry] of this.cards) {
      if (seen.has(key)) continue;
      entry.node.remove();
      this.cards.delete(key);
    }
  }

  card(call) {
    const age = element('dd', { attributes: { 'data-field': 'waiting' } });
    const deadline = element('dd', { attributes: { 'data-field': 'deadline' } });
    const note = element('input', {
      className: 'approval-note',
      attributes: {
        type: 'text',
        placeholder: 'note (optional; the model reads it with a denial)',
        'aria-label': 'Note',
        maxlength: 2000,
      },
    });
    const approve = element('button', {
      className: 'approve',
      text: 'Approve',
      attributes: { type: 'button' },
    });
    const deny = element('button', {
      className: 'danger deny',
      text: 'Deny',
      attributes: { type: 'button' },
    });
    const jobLink = element('a', {
      text: call.jobId,
      attributes: { href: jobPageHref(call.jobId) },
    });
    const node = element(
      'li',
      {
        className: 'approval',
        attributes: { 'data-job-id': call.jobId, 'data-tool-call-id': call.toolCallId },
      },
      element(
        'dl',
        { className: 'approval-fields' },
        this.showJob ? field('job', '', 'job-id') : undefined,
        field('tool', visibleText(call.toolName), 'tool-name'),
        field('call', visibleText(call.toolCallId), 'muted'),
        field('reason', visibleText(call.reason)),
        call.batchId && this.showJob ? field('batch', call.batchId) : undefined,
        element('div', { className: 'approval-field' }, element('dt', { text: 'waiting' }), age),
        element(
          'div',
          { className: 'approval-field' },
          element('dt', { text: 'deadline' }),
          deadline,
        ),
      ),
      element('pre', { className: 'tool-arguments', text: argumentsText(call.args) }),
      element('div', { className: 'actions' }, note, approve, deny),
    );
    if (this.showJob) node.querySelector('[data-field="job"]').replaceChildren(jobLink);
    approve.addEventListener('click', () => void this.decide(call, 'approve', node));
    deny.addEventListener('click', () => void this.decide(call, 'deny', node));
    return { node, age, deadline };
  }

  async decide(call, decision, node) {
    const buttons = node.querySelectorAll('button');
    for (const button of buttons) button.disabled = true;
    const note = node.querySelector('.approval-note').value.trim();
    const path = jobPath(
      call.jobId,
      `/approvals/${encodeURIComponent(call.toolCallId)}/${decision}`,
    );
    try {
      const decided = await postJson(path, note ? { note } : {});
      const verb = decided.outcome.decision === 'approve' ? 'Approved' : 'Denied';
      this.say(`${verb} ${call.toolName} call ${call.toolCallId} of job ${call.jobId}.`, false);
      node.remove();
      this.cards.delete(keyOf(call));
    } catch (error) {
      this.say(
        `Could not decide call ${call.toolCallId} of job ${call.jobId}: ${error.message}`,
        true,
      );
      for (const button of buttons) button.disabled = false;
    }
    this.onDecided();
  }

  say(text, isError) {
    this.message.textContent = text;
    this.message.classList.toggle('error', isError);
    this.message.hidden = false;
  }
}
