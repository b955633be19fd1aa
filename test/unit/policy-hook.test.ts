import { jest } from '@jest/globals';
import {
  BLOCKED_BY_POLICY,
  OPERATION_ABORTED,
  type BeforeToolCallContext,
  type BeforeToolCallHook,
} from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { immediateText, preflight, preparedArgs } from './support/preflight.js';
import { editTool, readTool, settingsTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

describe('R9, R12: abort checks around the hook', () => {
  test('R9: an abort before the hook answers Operation aborted and never calls the hook', async () => {
    const hook = jest.fn<BeforeToolCallHook>();
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
      beforeToolCall: hook,
      isAborted: () => true,
    });
    expect(immediateText(outcome)).toBe(OPERATION_ABORTED);
    expect(hook).not.toHaveBeenCalled();
  });

  test('R9: lookup and validation still decide first (the first failure decides)', async () => {
    const aborted = { isAborted: () => true };
    expect(immediateText(await preflight([readTool], toolCall('c1', 'nope', {}), aborted))).toBe(
      'Tool nope not found',
    );
    expect(
      immediateText(await preflight([readTool], toolCall('c1', 'read', {}), aborted)),
    ).toContain('path: must have required properties path');
  });

  test('R12: an abort raised inside the hook answers Operation aborted', async () => {
    let aborted = false;
    const hook = jest.fn<BeforeToolCallHook>(() => {
      aborted = true;
    });
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
      beforeToolCall: hook,
      isAborted: () => aborted,
    });
    expect(hook).toHaveBeenCalledTimes(1);
    expect(immediateText(outcome)).toBe(OPERATION_ABORTED);
  });

  test('R12: without an abort the call is prepared', async () => {
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
      beforeToolCall: () => undefined,
    });
    expect(preparedArgs(outcome)).toEqual({ path: 'a' });
  });
});

describe('R10: the policy gate', () => {
  test('R10: the hook receives the assistant message, the raw call, the validated args and the context', async () => {
    const seen: BeforeToolCallContext[] = [];
    const call = toolCall('c1', 'settings', { count: '2', ratio: 1, enabled: 'false', label: 'x' });
    await preflight([settingsTool], call, {
      beforeToolCall: (context) => {
        seen.push(context);
      },
    });
    expect(seen).toHaveLength(1);
    const context = seen[0]!;
    expect(context.toolCall).toBe(call);
    expect(context.assistantMessage.content).toEqual([call]);
    expect(context.args).toEqual({ count: 2, ratio: 1, enabled: false, label: 'x' });
    expect(context.tool.name).toBe('settings');
    expect(context.context.systemPrompt).toBe('You are a test.');
  });

  test('R10: a block with a reason is an error result with that reason; the loop goes on', async () => {
    const harness = agentHarness({
      tools: [readTool],
      beforeToolCall: ({ args }) =>
        (args as { path: string }).path === '.env'
          ? { block: true, reason: 'no secrets' }
          : undefined,
      answers: [
        assistant([
          toolCall('c1', 'read', { path: '.env' }),
          toolCall('c2', 'read', { path: 'a' }),
        ]),
        assistant([text('understood')]),
      ],
    });
    const outcome = await harness.run();
    const results = resultsOf(harness.transcript.messages);
    expect(
      results.map((result) => [result.toolCallId, result.isError, textOfResult(result)]),
    ).toEqual([
      ['c1', true, 'no secrets'],
      ['c2', false, 'ok c2'],
    ]);
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['c2']);
    // The block is an outcome of the call, not of the run: the model is asked again.
    expect(harness.model.requests).toHaveLength(2);
    expect(outcome.stopReason).toBe('stop');
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R10: a block without a reason uses the default text', async () => {
    for (const reason of [undefined, '']) {
      const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
        beforeToolCall: () => ({ block: true, reason }),
      });
      expect(immediateText(outcome)).toBe(BLOCKED_BY_POLICY);
    }
    expect(BLOCKED_BY_POLICY).toBe('Tool execution was blocked');
  });

  test('R10: a hook that throws gives its message as the error result; the loop goes on', async () => {
    const harness = agentHarness({
      tools: [readTool],
      beforeToolCall: async () => {
        throw new Error('policy store unavailable');
      },
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('ok')])],
    });
    await harness.run();
    const [result] = resultsOf(harness.transcript.messages);
    expect(result).toMatchObject({ toolCallId: 'c1', isError: true });
    expect(textOfResult(result)).toBe('policy store unavailable');
    expect(harness.executed).toEqual([]);
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R10: a hook that throws a non-Error still gives a readable text', async () => {
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
      beforeToolCall: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw 'plain refusal';
      },
    });
    expect(immediateText(outcome)).toBe('plain refusal');
  });
});

describe('R11: frozen arguments and validated rewrites', () => {
  test('R11: the hook gets frozen args; mutating throws and the executed args are unchanged', async () => {
    const attempts: string[] = [];
    const harness = agentHarness({
      tools: [editTool],
      beforeToolCall: ({ args }) => {
        const target = args as { path: string; edits: { oldText: string }[] };
        for (const mutate of [
          () => {
            target.path = '/etc/passwd';
          },
          () => {
            target.edits[0]!.oldText = 'changed';
          },
          () => {
            target.edits.push({ oldText: 'x' });
          },
          () => {
            delete (target as Partial<typeof target>).path;
          },
        ]) {
          try {
            mutate();
            attempts.push('allowed');
          } catch (error) {
            attempts.push(error instanceof TypeError ? 'TypeError' : 'other');
          }
        }
        expect(Object.isFrozen(target)).toBe(true);
        expect(Object.isFrozen(target.edits[0])).toBe(true);
      },
      answers: [
        assistant([toolCall('c1', 'edit', { path: 'a.txt', oldText: 'x', newText: 'y' })]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(attempts).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError']);
    expect(harness.executed.map((call) => call.args)).toEqual([
      { path: 'a.txt', edits: [{ oldText: 'x', newText: 'y' }] },
    ]);
    expect(resultsOf(harness.transcript.messages)[0]!.isError).toBe(false);
  });

  test('R11: a valid { args } rewrite is validated again and reaches execute coerced', async () => {
    const harness = agentHarness({
      tools: [settingsTool],
      beforeToolCall: () => ({ args: { count: '10', ratio: '0.25', enabled: 'true', label: 3 } }),
      answers: [
        assistant([
          toolCall('c1', 'settings', { count: 1, ratio: 1, enabled: false, label: 'orig' }),
        ]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.executed).toHaveLength(1);
    const args = harness.executed[0]!.args;
    expect(args).toEqual({ count: 10, ratio: 0.25, enabled: true, label: '3' });
    expect(Object.isFrozen(args)).toBe(true);
    // The raw call in the transcript is what the model sent.
    expect(harness.executed[0]!.toolCall.arguments).toEqual({
      count: 1,
      ratio: 1,
      enabled: false,
      label: 'orig',
    });
  });

  test('R11: an invalid { args } rewrite is a validation error result, never executed', async () => {
    const harness = agentHarness({
      tools: [settingsTool],
      beforeToolCall: () => ({ args: { count: 'many', ratio: 1, enabled: true } }),
      answers: [
        assistant([toolCall('c1', 'settings', { count: 1, ratio: 1, enabled: false, label: 'x' })]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.executed).toEqual([]);
    const [result] = resultsOf(harness.transcript.messages);
    expect(result!.isError).toBe(true);
    const message = textOfResult(result);
    expect(message).toContain('Validation failed for tool "settings"');
    expect(message).toContain('count: must be integer');
    expect(message).toContain('label: must have required properties label');
  });

  test('R11, R12: an abort raised by a rewriting hook still wins', async () => {
    let aborted = false;
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path: 'a' }), {
      beforeToolCall: () => {
        aborted = true;
        return { args: { path: 'b' } };
      },
      isAborted: () => aborted,
    });
    expect(immediateText(outcome)).toBe(OPERATION_ABORTED);
  });
});
