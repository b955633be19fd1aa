// A Pi-style program on durable jobs: Pi's `Agent`, imported from durable-agent-runner.
// Each run is a Temporal job; a worker killed in the middle loses nothing of it.
//
//   npm run build && node examples/pi-agent/main.mjs
//
// Options: --json (one event a line), --no-worker (only `dar worker` processes carry the runs),
// --state-dir DIR, --workspace DIR, --model provider:id (default: the scripted model beside this file).
import { parseArgs } from 'node:util';
import { fileURLToPath, URL } from 'node:url';
import { Agent } from 'durable-agent-runner/agent';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean' },
    'no-worker': { type: 'boolean' },
    'state-dir': { type: 'string' },
    workspace: { type: 'string' },
    model: { type: 'string' },
  },
});
const script = fileURLToPath(new URL('./script.json', import.meta.url));
const workspace = values.workspace ?? fileURLToPath(new URL('../workspace', import.meta.url));

const agent = new Agent({
  initialState: {
    systemPrompt: 'You are a careful agent working in a workspace through the tools you are given.',
    model: values.model ?? `scripted:${script}`,
    tools: ['ls', 'read'],
  },
  workspace,
  stateDir: values['state-dir'],
  worker: !values['no-worker'],
});

agent.subscribe((event) => {
  if (values.json) {
    console.log(JSON.stringify(event));
    return;
  }
  if (event.type === 'message_end' && event.message.role === 'assistant') {
    for (const block of event.message.content) {
      if (block.type === 'text') console.log(`assistant: ${block.text}`);
      if (block.type === 'toolCall') console.log(`tool call: ${block.name}`);
    }
  } else if (event.type === 'tool_execution_end') {
    console.log(`tool result: ${event.toolName}${event.isError ? ' (error)' : ''}`);
  } else if (event.type === 'agent_end') {
    console.log('(run ended)');
  }
});

try {
  await agent.prompt('What is in the workspace?');
  await agent.prompt('Are you sure?');
  process.stderr.write(
    `Conversation of ${agent.state.messages.length} messages (job ${agent.jobId})\n`,
  );
} finally {
  await agent.close();
}
