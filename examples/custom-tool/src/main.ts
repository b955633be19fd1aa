/**
 * Starts a worker with its own tool, runs one job that calls it, prints the tool results and
 * the answer. Temporal: TEMPORAL_ADDRESS, or the embedded dev server (the `temporal` CLI on PATH
 * or TEMPORAL_CLI_PATH). MODEL: a model name (default: the scripted model in script.json).
 */
import { resolve } from 'node:path';
import { createAgentWorker, openConnection, startJob } from 'durable-agent-runner';
import { wordCount } from './tools.js';

const connection = await openConnection();
try {
  const worker = await createAgentWorker({
    connection: await connection.workerConnection(),
    namespace: connection.namespace,
    store: connection.store,
    tools: [wordCount],
  });
  const job = await startJob(
    connection.client,
    {
      prompt: 'How many words does notes.txt have?',
      model: process.env.MODEL ?? `scripted:${resolve('script.json')}`,
      workspace: resolve(process.env.WORKSPACE ?? 'workspace'),
      tools: ['read', 'word_count'],
    },
    { store: connection.store },
  );
  const result = await worker.runUntil(job.result());
  for (const message of result.messages) {
    if (message.role === 'user') continue;
    const text = message.content.map((block) => (block.type === 'text' ? block.text : ''));
    const who = message.role === 'toolResult' ? `tool ${message.toolName}` : 'assistant';
    if (text.join('') !== '') console.log(`${who}: ${text.join('')}`);
  }
} finally {
  await connection.close();
}
