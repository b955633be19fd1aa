import type { AfterToolCallHook, BeforeToolCallHook } from '../../../src/core/index.js';
import { agentHarness } from '../support/harness.js';
import { assistant, text, toolCall } from '../support/messages.js';
import { editTool, readTool } from '../support/tools.js';
import { resultsOf, textOfResult } from '../support/transcript.js';

async function runWith(
  hooks: { beforeToolCall?: BeforeToolCallHook; afterToolCall?: AfterToolCallHook },
  call = toolCall('c1', 'read', { path: 'a.txt' }),
) {
  const harness = agentHarness({
    tools: [readTool, editTool],
    ...hooks,
    answers: [assistant([call]), assistant([text('done')])],
  });
  await harness.run();
  return { harness, result: resultsOf(harness.transcript.messages)[0]! };
}

describe('R11: a hook that changes the frozen arguments in place is told to return { args }', () => {
  test('R11: assigning a field: an error result that says to return { args }, and no execution', async () => {
    const { harness, result } = await runWith({
      beforeToolCall: ({ args }) => {
        (args as { path: string }).path = 'b.txt';
      },
    });
    expect(harness.executed).toEqual([]);
    expect(result.isError).toBe(true);
    const message = textOfResult(result);
    expect(message).toContain('beforeToolCall changed the call');
    expect(message).toContain('return { args: newArguments } instead');
    expect(message).not.toMatch(/^TypeError|^Cannot assign/);
  });

  test('R11: pushing to a nested array gets the same advice', async () => {
    const { result } = await runWith(
      {
        beforeToolCall: ({ args }) => {
          (args as { edits: unknown[] }).edits.push({ oldText: 'x', newText: 'y' });
        },
      },
      toolCall('c1', 'edit', { path: 'a', edits: [{ oldText: 'a', newText: 'b' }] }),
    );
    expect(textOfResult(result)).toContain('return { args: newArguments } instead');
  });

  test('R11: deleting a field gets the same advice', async () => {
    const { result } = await runWith({
      beforeToolCall: ({ args }) => {
        delete (args as { path?: string }).path;
      },
    });
    expect(textOfResult(result)).toContain('return { args: newArguments } instead');
  });

  test('R10: a TypeError of the hook own making keeps its own message', async () => {
    const { result } = await runWith({
      beforeToolCall: () => {
        throw new TypeError('policy table is missing');
      },
    });
    expect(textOfResult(result)).toBe('policy table is missing');
  });

  test('R17: afterToolCall writing to the arguments is told it cannot change them', async () => {
    const { harness, result } = await runWith({
      afterToolCall: ({ args }) => {
        (args as { path: string }).path = 'b.txt';
      },
    });
    expect(harness.executed).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(textOfResult(result)).toContain('afterToolCall changed the call');
    expect(textOfResult(result)).toContain('it cannot change them');
  });
});
