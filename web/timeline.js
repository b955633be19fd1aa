// A job's transcript and events as a timeline: one entry per event that a person reads, tool
// calls as cards that get their result when it comes. All job text is set as text.
import { element, jsonText } from './dom.js';
import { LiveView } from './live-view.js';

/** The text of message or tool-result content blocks; images and others by their type. */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (block?.type === 'text') return block.text;
      if (block?.type === 'image') return '[image]';
      return `[${block?.type ?? 'unknown'}]`;
    })
    .join('\n');
}

function entry(event, className, ...children) {
  return element(
    'li',
    {
      className: `event ${className}`,
      attributes: { 'data-type': event.type, 'data-seq': event.seq },
    },
    element('span', { className: 'seq', text: `#${event.seq}` }),
    ...children,
  );
}

function textBlock(text) {
  return element('div', { className: 'text', text });
}

function assistantParts(message) {
  const parts = [];
  for (const block of message.content ?? []) {
    if (block?.type === 'text' && block.text) parts.push(textBlock(block.text));
    else if (block?.type === 'thinking' && block.thinking) {
      parts.push(
        element(
          'details',
          { className: 'thinking' },
          element('summary', { text: 'thinking' }),
          textBlock(block.thinking),
        ),
      );
    } else if (block?.type === 'toolCall') {
      parts.push(element('div', { className: 'muted', text: `asks for tool ${block.name}` }));
    }
  }
  if (message.stopReason === 'error' || message.stopReason === 'aborted') {
    const reason = message.errorMessage ? `: ${message.errorMessage}` : '';
    parts.push(element('div', { className: 'error', text: `${message.stopReason}${reason}` }));
  }
  return parts;
}

export class Timeline {
  constructor(list) {
    this.list = list;
    this.lastSeq = 0;
    this.turn = 0;
    /** Tool cards by tool call id, to put each result in its call's card. */
    this.toolCards = new Map();
    this.live = new LiveView(list, (event) => this.toolCard(event));
  }

  /** Adds a live event (token deltas, tool output) of something still under way. */
  addLive(event) {
    this.live.add(event);
  }

  /** Adds an event (`{ type, seq, ... }`); one already shown (a reconnect) is skipped. */
  add(event) {
    if (typeof event?.seq !== 'number' || event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    const node = this.render(event);
    if (node) this.list.append(node);
  }

  render(event) {
    switch (event.type) {
      case 'agent_start':
        return entry(event, 'marker', element('span', { text: 'run started' }));
      case 'agent_end':
        return entry(event, 'marker', element('span', { text: 'run finished' }));
      case 'turn_start':
        this.turn += 1;
        return entry(event, 'marker turn', element('span', { text: `turn ${this.turn}` }));
      case 'turn_end':
      case 'message_start':
        return undefined;
      case 'message_end':
        return this.message(event);
      case 'tool_execution_start': {
        // Live output may have made the card already (its start was on its way to the store).
        const early = this.toolCards.get(event.toolCallId);
        if (!early) return this.toolStart(event);
        early.querySelector('.tool-arguments').textContent = jsonText(event.args);
        early.dataset.seq = String(event.seq);
        early.querySelector('.seq').textContent = `#${event.seq}`;
        // Moved to where its start event puts it in the timeline.
        this.list.append(early);
        return undefined;
      }
      case 'tool_execution_update':
        this.toolCard(event).querySelector('.tool-result').textContent = contentText(
          event.partialResult?.content ?? event.partialResult,
        );
        return undefined;
      case 'tool_execution_end':
        return this.toolEnd(event);
      case 'approval_requested':
        return this.approvalRequested(event);
      case 'approval_decided':
        return this.approvalDecided(event);
      case 'compaction':
        return entry(
          event,
          'note',
          element('span', {
            text: `context compacted: about ${event.tokensBefore} tokens, now ${event.tokensAfter}`,
          }),
          element(
            'details',
            {},
            element('summary', { text: 'summary' }),
            textBlock(event.summary ?? ''),
          ),
        );
      default:
        // An event this page does not know: shown as it came.
        return entry(
          event,
          'other',
          element('span', { className: 'label', text: event.type }),
          element('pre', { text: jsonText(event) }),
        );
    }
  }

  message(event) {
    const message = event.message ?? {};
    if (message.role === 'toolResult') return undefined;
    if (message.role === 'assistant') {
      this.live.messageEnded();
      const failed = message.stopReason === 'error' || message.stopReason === 'aborted';
      return entry(
        event,
        `message assistant${failed ? ' failed' : ''}`,
        element('span', { className: 'label', text: 'assistant' }),
        ...assistantParts(message),
      );
    }
    return entry(
      event,
      `message ${message.role === 'user' ? 'user' : 'other'}`,
      element('span', { className: 'label', text: message.role ?? 'message' }),
      textBlock(contentText(message.content)),
    );
  }

  toolStart(event) {
    const card = entry(
      event,
      'tool-call',
      element(
        'div',
        { className: 'tool-header' },
        element('span', { className: 'label', text: 'tool' }),
        element('span', { className: 'tool-name', text: event.toolName }),
        element('span', { className: 'muted', text: event.toolCallId }),
      ),
      // Arguments not known yet (a card made by live output before its start event): empty.
      element('pre', {
        className: 'tool-arguments',
        text: event.args === undefined ? '' : jsonText(event.args),
      }),
      element('pre', { className: 'tool-result running', text: 'running…' }),
    );
    card.dataset.toolCallId = event.toolCallId;
    this.toolCards.set(event.toolCallId, card);
    return card;
  }

  /** The card of the event's tool call; a new one (appended) if its start was not seen. */
  toolCard(event) {
    let card = this.toolCards.get(event.toolCallId);
    if (!card) {
      card = this.toolStart(event);
      this.list.append(card);
    }
    return card;
  }

  toolEnd(event) {
    this.live.toolEnded(event.toolCallId);
    const card = this.toolCard(event);
    const result = card.querySelector('.tool-result');
    result.textContent = contentText(event.result?.content) || '(no output)';
    result.classList.remove('running');
    card.classList.add(event.isError ? 'error' : 'ok');
    card.dataset.endSeq = String(event.seq);
    return undefined;
  }

  approvalRequested(event) {
    const deadline =
      typeof event.deadline === 'number'
        ? `; deadline ${new Date(event.deadline).toLocaleString()}, then ${event.onTimeout ?? 'deny'}`
        : '';
    return entry(
      event,
      'approval requested',
      element('span', { className: 'label', text: 'approval' }),
      element('span', {
        className: 'approval-text',
        text: `${event.toolName} call ${event.toolCallId} waits for approval: ${event.reason ?? ''}${deadline}`,
      }),
      element('pre', { className: 'tool-arguments', text: jsonText(event.args) }),
    );
  }

  approvalDecided(event) {
    const approved = event.decision === 'approve';
    let how;
    if (event.source === 'timeout') {
      how = `${approved ? 'allowed' : 'denied'} when the approval deadline passed`;
    } else if (event.source === 'cancelled') {
      how = 'stopped waiting: the job was cancelled';
    } else {
      how = `${approved ? 'approved' : 'denied'}${event.by ? ` by ${event.by}` : ''}`;
    }
    const note = event.note ? `: ${event.note}` : '';
    return entry(
      event,
      `approval decided ${approved ? 'approved' : 'denied'}`,
      element('span', { className: 'label', text: 'approval' }),
      element('span', {
        className: 'approval-text',
        text: `${event.toolName} call ${event.toolCallId} ${how}${note}`,
      }),
    );
  }
}
