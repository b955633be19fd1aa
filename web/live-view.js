// The live side of a job's timeline: the answer a model call is streaming (token deltas) and
// the output of a running tool, shown while they happen. The job's own events are final: a
// draft answer is replaced by its `message_end`, and a retried call's draft is removed when the
// stream says it is void. All job text is set as text.
import { element } from './dom.js';

export class LiveView {
  /** `list` is the timeline's list; `toolCard(event)` finds or makes a tool call's card. */
  constructor(list, toolCard) {
    this.list = list;
    this.toolCard = toolCard;
    /** Draft answers by `callIndex/attempt`: `{ node, blocks: Map<contentIndex, element> }`. */
    this.drafts = new Map();
    /** Tool calls whose end was shown: later live output of them is stale. */
    this.endedTools = new Set();
  }

  /** Shows a live event (`message_update`, `message_void`, `tool_execution_update`). */
  add(event) {
    if (event?.type === 'message_update') this.update(event);
    else if (event?.type === 'message_void') this.voidDrafts(event);
    else if (event?.type === 'tool_execution_update') this.toolOutput(event);
  }

  /** The job's `message_end` of an assistant message: it replaces every draft answer. */
  messageEnded() {
    for (const draft of this.drafts.values()) draft.node.remove();
    this.drafts.clear();
  }

  /** The job's `tool_execution_end`: the card shows the final result from now on. */
  toolEnded(toolCallId) {
    this.endedTools.add(toolCallId);
  }

  update(event) {
    const inner = event.assistantMessageEvent ?? {};
    const draft = this.draft(event);
    if (inner.type === 'text_delta' || inner.type === 'thinking_delta') {
      this.block(draft, inner, inner.type === 'thinking_delta').textContent += inner.delta;
    } else if (inner.type === 'text_end' || inner.type === 'thinking_end') {
      // The block's whole text (a delta may have been lost: writes are best effort).
      this.block(draft, inner, inner.type === 'thinking_end').textContent = inner.content ?? '';
    } else if (inner.type === 'toolcall_end') {
      const name = inner.toolCall?.name ?? 'a tool';
      this.block(draft, inner, false, 'muted').textContent = `asks for tool ${name}`;
    }
  }

  /** The draft of the event's call and attempt; a new one (appended) at its first event. */
  draft(event) {
    const key = `${event.callIndex}/${event.attempt}`;
    let draft = this.drafts.get(key);
    if (!draft) {
      const node = element(
        'li',
        {
          className: 'event message assistant live',
          attributes: { 'data-type': 'live-message', 'data-call': key },
        },
        element('span', { className: 'seq', text: 'live' }),
        element('span', { className: 'label', text: 'assistant (writing…)' }),
      );
      draft = { node, blocks: new Map(), callIndex: event.callIndex, attempt: event.attempt };
      this.drafts.set(key, draft);
      this.list.append(node);
    }
    return draft;
  }

  block(draft, inner, thinking, className = 'text') {
    let block = draft.blocks.get(inner.contentIndex);
    if (!block) {
      block = element('div', { className: thinking ? 'text thinking' : className });
      draft.blocks.set(inner.contentIndex, block);
      draft.node.append(block);
    }
    return block;
  }

  /** Removes the drafts of the call's attempts up to the void one. */
  voidDrafts(event) {
    for (const [key, draft] of this.drafts) {
      if (draft.callIndex === event.callIndex && draft.attempt <= event.attempt) {
        draft.node.remove();
        this.drafts.delete(key);
      }
    }
  }

  /** Adds a running tool's new output to its card (`whole`: the output so far, replacing). */
  toolOutput(event) {
    if (this.endedTools.has(event.toolCallId)) return;
    const result = this.toolCard(event).querySelector('.tool-result');
    const text = (event.partialResult?.content ?? [])
      .map((block) => (block?.type === 'text' ? block.text : ''))
      .join('');
    if (!result.dataset.live || event.whole) {
      result.dataset.live = 'true';
      result.textContent = text;
    } else {
      result.textContent += text;
    }
  }
}
