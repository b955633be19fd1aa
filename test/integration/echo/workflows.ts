import { proxyActivities } from '@temporalio/workflow';
import {
  runAgentLoop,
  userMessage,
  type AgentEvent,
  type Message,
} from '../../../src/core/index.js';
import type * as activities from './activities.js';
import { echoToolSpec } from './echo-tool.js';

const { cannedModel, echo } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

export interface EchoAgentOutcome {
  messages: Message[];
  events: AgentEvent['type'][];
}

/** The core loop inside a workflow: the model and the tool body are activities. */
export async function echoAgent(prompt: string): Promise<EchoAgentOutcome> {
  const transcript = { messages: [] as Message[] };
  const events: AgentEvent['type'][] = [];
  await runAgentLoop(
    [userMessage(prompt, Date.now())],
    transcript,
    { systemPrompt: 'You echo.', tools: [echoToolSpec] },
    {
      callModel: (request) => cannedModel(request),
      executeTool: (call) => echo(call.args as Parameters<typeof echo>[0]),
      emit: (event) => {
        events.push(event.type);
      },
      isAborted: () => false,
      now: () => Date.now(),
      takeSteeringMessages: () => [],
      takeFollowUpMessages: () => [],
    },
  );
  return { messages: transcript.messages, events };
}
