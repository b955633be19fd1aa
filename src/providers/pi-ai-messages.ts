import type * as Pi from '@mariozechner/pi-ai';
import type {
  AssistantContent,
  AssistantMessage,
  Message,
  ModelRequest,
  ToolCall,
  Usage,
} from '../core/index.js';
import { isRecord } from './json-record.js';

/**
 * Our transcript uses Pi's field names, so the conversion is mostly a copy. Two differences:
 * our assistant messages may lack `api`/`provider`/`model` (messages the workflow made itself),
 * and our tool-call arguments are `unknown` (untrusted model output) where Pi expects an object.
 */

/** A tool call as Pi sends it: without our `oversized` mark, which no provider knows. */
function toPiToolCall(block: ToolCall): Pi.ToolCall {
  const call: Pi.ToolCall = {
    type: 'toolCall',
    id: block.id,
    name: block.name,
    arguments: isRecord(block.arguments) ? block.arguments : {},
  };
  if (block.thoughtSignature !== undefined) call.thoughtSignature = block.thoughtSignature;
  return call;
}

function toPiAssistant(message: AssistantMessage): Pi.AssistantMessage {
  return {
    ...message,
    api: message.api ?? 'unknown',
    provider: message.provider ?? 'unknown',
    model: message.model ?? 'unknown',
    content: message.content.map((block) =>
      block.type === 'toolCall' ? toPiToolCall(block) : block,
    ),
  };
}

function toPiMessage(message: Message): Pi.Message {
  return message.role === 'assistant' ? toPiAssistant(message) : message;
}

/** The model request as pi-ai's context. Tool schemas are plain JSON Schema already. */
export function toPiContext(request: ModelRequest): Pi.Context {
  return {
    systemPrompt: request.systemPrompt,
    messages: request.messages.map(toPiMessage),
    tools: request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as Pi.Tool['parameters'],
    })),
  };
}

function fromPiBlock(block: Pi.AssistantMessage['content'][number]): AssistantContent {
  switch (block.type) {
    case 'text': {
      const text: AssistantContent = { type: 'text', text: block.text };
      if (block.textSignature !== undefined) text.textSignature = block.textSignature;
      return text;
    }
    case 'thinking': {
      const thinking: AssistantContent = { type: 'thinking', thinking: block.thinking };
      if (block.thinkingSignature !== undefined)
        thinking.thinkingSignature = block.thinkingSignature;
      if (block.redacted !== undefined) thinking.redacted = block.redacted;
      return thinking;
    }
    case 'toolCall': {
      const call: AssistantContent = {
        type: 'toolCall',
        id: block.id,
        name: block.name,
        arguments: block.arguments,
      };
      if (block.thoughtSignature !== undefined) call.thoughtSignature = block.thoughtSignature;
      return call;
    }
  }
}

function copyUsage(usage: Pi.Usage): Usage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.totalTokens,
    cost: { ...usage.cost },
  };
}

/**
 * pi-ai's final message as ours: only the fields of our message model, so that nothing else
 * (response ids, diagnostics, streaming scratch) reaches workflow history.
 */
export function fromPiAssistant(message: Pi.AssistantMessage): AssistantMessage {
  const result: AssistantMessage = {
    role: 'assistant',
    content: message.content.map(fromPiBlock),
    api: message.api,
    provider: message.provider,
    model: message.model,
    usage: copyUsage(message.usage),
    stopReason: message.stopReason,
    timestamp: message.timestamp,
  };
  if (message.errorMessage !== undefined) result.errorMessage = message.errorMessage;
  return result;
}
