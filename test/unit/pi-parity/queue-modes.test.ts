import {
  drainQueue,
  runAgentLoop,
  type AgentLoopConfig,
  type Message,
  type QueueMode,
} from '../../../src/core/index.js';
import { jobInputProblems } from '../../../src/workflows/job-input-schema.js';
import { takeRunPrompts } from '../../../src/workflows/job-queue-modes.js';
import { agentHarness, type Harness } from '../support/harness.js';
import { assistant, text, user } from '../support/messages.js';

/** A harness whose queues are real arrays, read by the mode the loop asks for. */
function queuedHarness(answers: number) {
  const harness = agentHarness({
    tools: [],
    answers: Array.from({ length: answers }, (_, index) => assistant([text(`answer ${index}`)])),
  });
  const steering: Message[] = [];
  const followUps: Message[] = [];
  const modesAsked: QueueMode[] = [];
  harness.effects.takeSteeringMessages = (mode) => {
    modesAsked.push(mode);
    return drainQueue(steering, mode);
  };
  harness.effects.takeFollowUpMessages = (mode) => drainQueue(followUps, mode);
  return { harness, steering, followUps, modesAsked };
}

function run(harness: Harness, config: Partial<AgentLoopConfig> = {}, options = {}) {
  return runAgentLoop(
    [user('go')],
    harness.transcript,
    { systemPrompt: 'You are a test.', tools: [], ...config },
    harness.effects,
    options,
  );
}

const userTexts = (messages: Message[]) =>
  messages.filter((message) => message.role === 'user').map((message) => message.content);

describe('steering and follow-up queue modes (Pi parity, issue #14)', () => {
  test('R20: by default two queued steering messages go in one per turn, oldest first', async () => {
    const { harness, steering, modesAsked } = queuedHarness(2);
    steering.push(user('first steer'), user('second steer'));
    await run(harness);
    const requests = harness.model.requests;
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages.map((message) => message.role)).toEqual([
      'user',
      'user',
      'assistant',
      'user',
    ]);
    expect(userTexts(requests[0]!.messages)).toEqual(['go', 'first steer']);
    expect(userTexts(requests[1]!.messages)).toEqual(['go', 'first steer', 'second steer']);
    expect(modesAsked.every((mode) => mode === 'one-at-a-time')).toBe(true);
  });

  test('R20: steeringMode all injects every queued steering message before one model call', async () => {
    const { harness, steering } = queuedHarness(1);
    steering.push(user('first steer'), user('second steer'));
    await run(harness, { steeringMode: 'all' });
    expect(harness.model.requests).toHaveLength(1);
    expect(userTexts(harness.model.requests[0]!.messages)).toEqual([
      'go',
      'first steer',
      'second steer',
    ]);
  });

  test('R20: by default each queued follow-up starts a turn of its own; all starts one turn', async () => {
    const byDefault = queuedHarness(3);
    byDefault.followUps.push(user('then this'), user('and that'));
    await run(byDefault.harness);
    expect(byDefault.harness.model.requests.map((r) => userTexts(r.messages).at(-1))).toEqual([
      'go',
      'then this',
      'and that',
    ]);

    const allAtOnce = queuedHarness(2);
    allAtOnce.followUps.push(user('then this'), user('and that'));
    await run(allAtOnce.harness, { followUpMode: 'all' });
    expect(allAtOnce.harness.model.requests).toHaveLength(2);
    expect(userTexts(allAtOnce.harness.model.requests[1]!.messages)).toEqual([
      'go',
      'then this',
      'and that',
    ]);
  });

  test('R20: skipInitialSteeringPoll keeps queued steering out of the first model call', async () => {
    const { harness, steering } = queuedHarness(2);
    steering.push(user('queued steer'));
    await run(harness, {}, { skipInitialSteeringPoll: true });
    expect(userTexts(harness.model.requests[0]!.messages)).toEqual(['go']);
    expect(userTexts(harness.model.requests[1]!.messages)).toEqual(['go', 'queued steer']);
  });

  test('drainQueue takes the oldest message, or all of them, and leaves the rest queued', () => {
    const queue = [user('a'), user('b'), user('c')];
    expect(drainQueue(queue, 'one-at-a-time')).toEqual([user('a')]);
    expect(queue).toEqual([user('b'), user('c')]);
    expect(drainQueue(queue, 'all')).toEqual([user('b'), user('c')]);
    expect(queue).toEqual([]);
    expect(drainQueue(queue, 'one-at-a-time')).toEqual([]);
  });
});

describe('a kept-open job reopened by queued messages', () => {
  test('R20: with both modes all, every queued message starts the run, steering first (earlier releases)', () => {
    const queues = { steering: [user('s1'), user('s2')], followUps: [user('f1')] };
    const prompts = takeRunPrompts(queues, { steeringMode: 'all', followUpMode: 'all' });
    expect(prompts).toEqual([user('s1'), user('s2'), user('f1')]);
    expect(queues).toEqual({ steering: [], followUps: [] });
  });

  test('R20: one at a time, the oldest steering message starts the run, else the oldest follow-up', () => {
    const modes = { steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' } as const;
    const queues = { steering: [user('s1'), user('s2')], followUps: [user('f1'), user('f2')] };
    expect(takeRunPrompts(queues, modes)).toEqual([user('s1')]);
    expect(takeRunPrompts(queues, modes)).toEqual([user('s2')]);
    expect(takeRunPrompts(queues, modes)).toEqual([user('f1')]);
    expect(queues).toEqual({ steering: [], followUps: [user('f2')] });
  });
});

describe('job input queue modes', () => {
  const base = { prompt: 'p', model: 'scripted:/x.json', workspace: '/w', tools: [] };

  test('a job input may set steeringMode and followUpMode to one-at-a-time or all', () => {
    expect(
      jobInputProblems({ ...base, steeringMode: 'all', followUpMode: 'one-at-a-time' }),
    ).toEqual([]);
  });

  test('any other mode is a bad input', () => {
    expect(jobInputProblems({ ...base, steeringMode: 'two-at-a-time' })).not.toEqual([]);
  });
});
