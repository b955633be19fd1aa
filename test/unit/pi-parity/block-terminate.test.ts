import type { BeforeToolCallHook } from '../../../src/core/index.js';
import { agentHarness } from '../support/harness.js';
import { assistant, text, toolCall } from '../support/messages.js';
import { readTool } from '../support/tools.js';
import { resultsOf, textOfResult } from '../support/transcript.js';

async function runBlocking(beforeToolCall: BeforeToolCallHook) {
  const harness = agentHarness({
    tools: [readTool],
    beforeToolCall,
    answers: [
      assistant([toolCall('c1', 'read', { path: 'a' }), toolCall('c2', 'read', { path: 'b' })]),
      assistant([text('went on')]),
    ],
  });
  await harness.run();
  return harness;
}

describe('R10, R18: a blocked call may ask to stop after the batch (Pi 0.84.1)', () => {
  test('R18: when every call is blocked with terminate, the run stops after the batch', async () => {
    const harness = await runBlocking(() => ({
      block: true,
      reason: 'stop here',
      terminate: true,
    }));
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.executed).toEqual([]);
    expect(resultsOf(harness.transcript.messages).map(textOfResult)).toEqual([
      'stop here',
      'stop here',
    ]);
  });

  test('R18: a block without terminate lets the run go on', async () => {
    const harness = await runBlocking(() => ({ block: true, reason: 'not this' }));
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R18: one blocked call with terminate does not stop a batch whose other call ran', async () => {
    const harness = await runBlocking(({ toolCall: call }) =>
      call.id === 'c1' ? { block: true, terminate: true } : undefined,
    );
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['c2']);
    expect(harness.model.requests).toHaveLength(2);
  });
});
