import { jest } from '@jest/globals';
import { runAgentLoop, type Message, type ShouldStopAfterTurnHook } from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall, user } from './support/messages.js';
import { readTool } from './support/tools.js';
import { expectEveryToolCallAnswered } from './support/transcript.js';

const contentsOf = (messages: Message[]) =>
  messages.map((message) =>
    message.role === 'toolResult'
      ? `toolResult:${message.toolCallId}`
      : `${message.role}:${typeof message.content === 'string' ? message.content : 'blocks'}`,
  );

describe('R20: steering', () => {
  test('R20: steering messages are injected after turn_end and before the next model call', async () => {
    const steer = user('use b.txt instead');
    const harness = agentHarness({
      tools: [readTool],
      steering: [[], [steer]],
      answers: [assistant([toolCall('c1', 'read', { path: 'a.txt' })]), assistant([text('ok')])],
    });
    await harness.run([user('read a.txt')]);
    expect(contentsOf(harness.model.requests[1]!.messages)).toEqual([
      'user:read a.txt',
      'assistant:blocks',
      'toolResult:c1',
      'user:use b.txt instead',
    ]);
    const labels = harness.sink.labels();
    const firstTurnEnd = labels.indexOf('turn_end');
    expect(labels.slice(firstTurnEnd, firstTurnEnd + 5)).toEqual([
      'turn_end',
      'turn_start',
      'message_start:user',
      'message_end:user',
      'message_start:assistant',
    ]);
    expect(harness.transcript.messages).toContainEqual(steer);
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R20: steering queued before the first model call goes into the first request', async () => {
    const harness = agentHarness({
      tools: [],
      steering: [[user('and be brief')]],
      answers: [assistant([text('ok')])],
    });
    await harness.run([user('hello')]);
    expect(contentsOf(harness.model.requests[0]!.messages)).toEqual([
      'user:hello',
      'user:and be brief',
    ]);
  });

  test('R20: steering after a turn without tool calls starts another turn', async () => {
    const harness = agentHarness({
      tools: [],
      steering: [[], [user('one more thing')]],
      answers: [assistant([text('first answer')]), assistant([text('second answer')])],
    });
    await harness.run([user('hello')]);
    expect(harness.model.requests).toHaveLength(2);
    expect(contentsOf(harness.model.requests[1]!.messages).at(-1)).toBe('user:one more thing');
  });
});

describe('R20: follow-up', () => {
  test('R20: follow-up messages start another turn only when the agent would stop', async () => {
    const harness = agentHarness({
      tools: [readTool],
      followUps: [[user('now summarise')]],
      answers: [
        assistant([toolCall('c1', 'read', { path: 'a' })]),
        assistant([text('read it')]),
        assistant([text('summary')]),
      ],
    });
    const outcome = await harness.run([user('read a')]);
    expect(harness.model.requests).toHaveLength(3);
    // Follow-ups are read once when the agent would stop, and once more at the end.
    expect(harness.reads.followUps).toBe(2);
    expect(contentsOf(harness.model.requests[2]!.messages)).toEqual([
      'user:read a',
      'assistant:blocks',
      'toolResult:c1',
      'assistant:blocks',
      'user:now summarise',
    ]);
    expect(outcome.stopReason).toBe('stop');
    expect(harness.sink.labels().filter((label) => label === 'agent_end')).toHaveLength(1);
    expect(harness.sink.labels().filter((label) => label === 'turn_start')).toHaveLength(3);
  });
});

describe('R20: shouldStopAfterTurn', () => {
  test('R20: shouldStopAfterTurn ends the run after turn_end, before steering and follow-ups are read', async () => {
    const shouldStopAfterTurn = jest.fn<ShouldStopAfterTurnHook>(() => true);
    const harness = agentHarness({
      tools: [readTool],
      shouldStopAfterTurn,
      steering: [[], [user('never read')]],
      followUps: [[user('never read either')]],
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('unused')])],
    });
    const outcome = await harness.run();
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.reads).toEqual({ steering: 1, followUps: 0 });
    expect(harness.sink.labels().slice(-2)).toEqual(['turn_end', 'agent_end']);
    expect(shouldStopAfterTurn).toHaveBeenCalledTimes(1);
    expect(shouldStopAfterTurn.mock.calls[0]![0]).toMatchObject({
      message: { stopReason: 'toolUse' },
      toolResults: [{ toolCallId: 'c1' }],
    });
    expect(outcome.newMessages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
    ]);
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R20: shouldStopAfterTurn returning false lets the run go on', async () => {
    const harness = agentHarness({
      tools: [readTool],
      shouldStopAfterTurn: () => false,
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
    });
    await harness.run();
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R20: a throwing shouldStopAfterTurn ends the run with that error', async () => {
    const harness = agentHarness({
      tools: [],
      shouldStopAfterTurn: () => {
        throw new Error('stop check broke');
      },
      answers: [assistant([text('hi')])],
    });
    await expect(harness.run()).rejects.toThrow('stop check broke');
  });
});

describe('pause and resume at a turn boundary', () => {
  test('R20: a paused run hands back the unread steering and resumes without agent_start', async () => {
    const harness = agentHarness({
      tools: [readTool],
      steering: [[], [user('steer while pausing')]],
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
    });
    const config = { systemPrompt: 'You are a test.', tools: [readTool] };
    const first = await runAgentLoop([user('go')], harness.transcript, config, harness.effects, {
      shouldPause: () => true,
    });
    expect(first.paused?.pending).toEqual([user('steer while pausing')]);
    expect(harness.sink.labels().at(-1)).toBe('turn_end');
    expect(harness.sink.labels()).not.toContain('agent_end');

    const before = harness.sink.events.length;
    const second = await runAgentLoop(
      first.paused!.pending,
      harness.transcript,
      config,
      harness.effects,
      { resume: true },
    );
    const resumed = harness.sink.labels().slice(before);
    expect(resumed[0]).toBe('turn_start');
    expect(resumed).not.toContain('agent_start');
    expect(resumed.at(-1)).toBe('agent_end');
    expect(contentsOf(harness.model.requests[1]!.messages).at(-1)).toBe('user:steer while pausing');
    expect(second.stopReason).toBe('stop');
    expectEveryToolCallAnswered(harness.transcript.messages);
  });
});
