import { runAgentLoop } from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall, user } from './support/messages.js';
import { readTool } from './support/tools.js';
import { expectEveryToolCallAnswered } from './support/transcript.js';

const config = { systemPrompt: 'You are a test.', tools: [readTool] };

describe('shouldStopBeforeTurn: a host refuses the next model call at a turn boundary', () => {
  test('R20: true ends the run after turn_end, with no model call and agent_end last', async () => {
    const harness = agentHarness({
      tools: [readTool],
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('never')])],
    });
    let asked = 0;
    const outcome = await runAgentLoop([user('go')], harness.transcript, config, harness.effects, {
      shouldStopBeforeTurn: () => {
        asked += 1;
        return true;
      },
    });
    expect(asked).toBe(1);
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.executed).toHaveLength(1);
    const labels = harness.sink.labels();
    expect(labels.slice(-2)).toEqual(['turn_end', 'agent_end']);
    expect(labels.filter((label) => label === 'turn_start')).toHaveLength(1);
    expect(outcome.stoppedBeforeTurn).toEqual({ pending: [] });
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R20: it is not asked when the run would end anyway, nor before the first turn', async () => {
    const harness = agentHarness({ tools: [readTool], answers: [assistant([text('done')])] });
    let asked = 0;
    const outcome = await runAgentLoop([user('go')], harness.transcript, config, harness.effects, {
      shouldStopBeforeTurn: () => {
        asked += 1;
        return true;
      },
    });
    expect(asked).toBe(0);
    expect(outcome.stoppedBeforeTurn).toBeUndefined();
    expect(outcome.stopReason).toBe('stop');
  });

  test('R20: steering read for the refused turn comes back as pending, not injected', async () => {
    const harness = agentHarness({
      tools: [readTool],
      steering: [[], [user('late steer')]],
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('never')])],
    });
    const outcome = await runAgentLoop([user('go')], harness.transcript, config, harness.effects, {
      shouldStopBeforeTurn: () => true,
    });
    expect(outcome.stoppedBeforeTurn?.pending).toEqual([user('late steer')]);
    expect(harness.transcript.messages).not.toContainEqual(user('late steer'));
  });

  test('R20: false lets the run go on as usual', async () => {
    const harness = agentHarness({
      tools: [readTool],
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
    });
    const outcome = await runAgentLoop([user('go')], harness.transcript, config, harness.effects, {
      shouldStopBeforeTurn: () => false,
    });
    expect(harness.model.requests).toHaveLength(2);
    expect(outcome.stopReason).toBe('stop');
    expect(outcome.stoppedBeforeTurn).toBeUndefined();
  });
});
