import { settle, until } from './support/deferred.js';
import { isToolEvent } from './support/event-sink.js';
import { gatedBodies } from './support/gated-bodies.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { lockedTool, readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

const readCalls = (...ids: string[]) =>
  ids.map((id) => toolCall(id, 'read', { path: `${id}.txt` }));

describe('R13, R14: sequential batches', () => {
  test('R13, R14: sequential by run option: the second body does not start before the first finished', async () => {
    const gated = gatedBodies();
    const harness = agentHarness({
      tools: [readTool],
      toolExecution: 'sequential',
      bodies: { read: gated.body },
      answers: [assistant(readCalls('s1', 's2')), assistant([text('done')])],
    });
    const running = harness.run();

    await until(() => gated.started.length === 1);
    // Give the loop every chance to start the second body early.
    for (let round = 0; round < 20; round += 1) await settle();
    expect(gated.started).toEqual(['s1']);
    expect(harness.sink.labels(isToolEvent)).toEqual(['tool_execution_start:s1']);

    gated.release('s1');
    await until(() => gated.started.length === 2);
    expect(gated.finished).toEqual(['s1']);
    // R14: the first call is fully published before the second one begins.
    expect(harness.sink.labels(isToolEvent)).toEqual([
      'tool_execution_start:s1',
      'tool_execution_end:s1',
      'message_start:toolResult:s1',
      'message_end:toolResult:s1',
      'tool_execution_start:s2',
    ]);

    gated.release('s2');
    await running;
    expect(harness.sink.labels(isToolEvent)).toEqual([
      'tool_execution_start:s1',
      'tool_execution_end:s1',
      'message_start:toolResult:s1',
      'message_end:toolResult:s1',
      'tool_execution_start:s2',
      'tool_execution_end:s2',
      'message_start:toolResult:s2',
      'message_end:toolResult:s2',
    ]);
    expect(resultsOf(harness.transcript.messages).map(textOfResult)).toEqual([
      'done s1',
      'done s2',
    ]);
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R13: one called tool with executionMode "sequential" makes the whole batch sequential', async () => {
    const gated = gatedBodies();
    const harness = agentHarness({
      tools: [readTool, lockedTool],
      bodies: { read: gated.body, locked: gated.body },
      answers: [
        assistant([
          toolCall('r1', 'read', { path: 'a' }),
          toolCall('l1', 'locked', { name: 'x' }),
          toolCall('r2', 'read', { path: 'b' }),
        ]),
        assistant([text('done')]),
      ],
    });
    const running = harness.run();
    for (const [index, id] of ['r1', 'l1', 'r2'].entries()) {
      await until(() => gated.started.length === index + 1);
      for (let round = 0; round < 10; round += 1) await settle();
      expect(gated.started).toEqual(['r1', 'l1', 'r2'].slice(0, index + 1));
      gated.release(id);
    }
    await running;
    expect(gated.finished).toEqual(['r1', 'l1', 'r2']);
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R13: a sequential tool that is not called leaves the batch parallel', async () => {
    const gated = gatedBodies();
    const harness = agentHarness({
      tools: [readTool, lockedTool],
      bodies: { read: gated.body },
      answers: [assistant(readCalls('p1', 'p2')), assistant([text('done')])],
    });
    const running = harness.run();
    await until(() => gated.started.length === 2);
    expect(gated.finished).toEqual([]);
    gated.release('p2');
    gated.release('p1');
    await running;
  });

  test('R14: sequential preflight errors are published in place, between the other calls', async () => {
    const harness = agentHarness({
      tools: [readTool],
      toolExecution: 'sequential',
      answers: [
        assistant([...readCalls('a'), toolCall('bad', 'read', {}), ...readCalls('b')]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.sink.labels(isToolEvent)).toEqual([
      'tool_execution_start:a',
      'tool_execution_end:a',
      'message_start:toolResult:a',
      'message_end:toolResult:a',
      'tool_execution_start:bad',
      'tool_execution_end:bad',
      'message_start:toolResult:bad',
      'message_end:toolResult:bad',
      'tool_execution_start:b',
      'tool_execution_end:b',
      'message_start:toolResult:b',
      'message_end:toolResult:b',
    ]);
  });
});

describe('R15: parallel batches', () => {
  test('R15: ends follow completion order, results follow source order, immediate errors end during preflight', async () => {
    const gated = gatedBodies();
    const harness = agentHarness({
      tools: [readTool],
      bodies: { read: gated.body },
      answers: [
        assistant([
          ...readCalls('a'),
          toolCall('x', 'missing', {}),
          ...readCalls('b'),
          toolCall('y', 'read', { path: { nested: 42 } }),
          toolCall('z', 'read', {}),
          ...readCalls('c'),
        ]),
        assistant([text('done')]),
      ],
    });
    let eventsWhenFirstBodyStarted: string[] = [];
    const firstBody = gated.body;
    harness.effects.executeTool = async (call, onUpdate) => {
      if (eventsWhenFirstBodyStarted.length === 0) {
        eventsWhenFirstBodyStarted = harness.sink.labels(isToolEvent);
      }
      harness.executed.push(call);
      return firstBody(call, onUpdate);
    };
    const running = harness.run();

    await until(() => gated.started.length === 3);
    expect(gated.started).toEqual(['a', 'b', 'c']);
    // Every call was preflighted, in source order, before any body started; the error ended at once.
    expect(eventsWhenFirstBodyStarted).toEqual([
      'tool_execution_start:a',
      'tool_execution_start:x',
      'tool_execution_end:x',
      'tool_execution_start:b',
      'tool_execution_start:y',
      'tool_execution_end:y',
      'tool_execution_start:z',
      'tool_execution_end:z',
      'tool_execution_start:c',
    ]);

    gated.release('c');
    await until(() => gated.finished.length === 1);
    gated.release('b');
    await until(() => gated.finished.length === 2);
    // No result message before the whole batch finished.
    expect(harness.sink.labels(isToolEvent).filter((label) => label.startsWith('message'))).toEqual(
      [],
    );
    gated.release('a');
    await running;

    const toolEvents = harness.sink.labels(isToolEvent);
    expect(toolEvents.filter((label) => label.startsWith('tool_execution_end'))).toEqual([
      'tool_execution_end:x',
      'tool_execution_end:y',
      'tool_execution_end:z',
      'tool_execution_end:c',
      'tool_execution_end:b',
      'tool_execution_end:a',
    ]);
    expect(toolEvents.slice(-12)).toEqual(
      ['a', 'x', 'b', 'y', 'z', 'c'].flatMap((id) => [
        `message_start:toolResult:${id}`,
        `message_end:toolResult:${id}`,
      ]),
    );
    const results = resultsOf(harness.transcript.messages);
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ['a', false],
      ['x', true],
      ['b', false],
      ['y', true],
      ['z', true],
      ['c', false],
    ]);
    expect(textOfResult(results[0])).toBe('done a');
    const turnEnd = harness.sink.events.find((event) => event.type === 'turn_end');
    expect(turnEnd?.type === 'turn_end' && turnEnd.toolResults.map((r) => r.toolCallId)).toEqual([
      'a',
      'x',
      'b',
      'y',
      'z',
      'c',
    ]);
    expect(harness.model.requests[1]!.messages.slice(-6).map((m) => m.role)).toEqual(
      Array(6).fill('toolResult'),
    );
    expectEveryToolCallAnswered(harness.transcript.messages);
  });

  test('R15: tool_execution_update events carry partial results between start and end', async () => {
    const harness = agentHarness({
      tools: [readTool],
      bodies: {
        read: async (call, onUpdate) => {
          onUpdate({ progress: 1 });
          onUpdate({ progress: 2 });
          return { content: [text(`read ${call.toolCall.id}`)] };
        },
      },
      answers: [assistant(readCalls('u1')), assistant([text('done')])],
    });
    await harness.run();
    expect(harness.sink.labels(isToolEvent).slice(0, 4)).toEqual([
      'tool_execution_start:u1',
      'tool_execution_update:u1',
      'tool_execution_update:u1',
      'tool_execution_end:u1',
    ]);
    const updates = harness.sink.events.filter((event) => event.type === 'tool_execution_update');
    expect(
      updates.map((event) => event.type === 'tool_execution_update' && event.partialResult),
    ).toEqual([{ progress: 1 }, { progress: 2 }]);
  });
});

describe('R16: a body that throws', () => {
  test.each(['parallel', 'sequential'] as const)(
    'R16: a throwing body gives an error result with its message (%s)',
    async (toolExecution) => {
      const harness = agentHarness({
        tools: [readTool],
        toolExecution,
        bodies: {
          read: async (call) => {
            if (call.toolCall.id === 'boom') throw new Error('disk on fire');
            // A body may throw anything; a non-Error must still give a readable text.
            // eslint-disable-next-line @typescript-eslint/only-throw-error
            if (call.toolCall.id === 'str') throw 'plain string failure';
            return { content: [text('fine')] };
          },
        },
        answers: [assistant(readCalls('ok1', 'boom', 'str', 'ok2')), assistant([text('done')])],
      });
      await harness.run();
      const results = resultsOf(harness.transcript.messages);
      expect(
        results.map((result) => [result.toolCallId, result.isError, textOfResult(result)]),
      ).toEqual([
        ['ok1', false, 'fine'],
        ['boom', true, 'disk on fire'],
        ['str', true, 'plain string failure'],
        ['ok2', false, 'fine'],
      ]);
      const ends = harness.sink.events.filter((event) => event.type === 'tool_execution_end');
      const endFlags = ends.map(
        (event) => event.type === 'tool_execution_end' && `${event.toolCallId}:${event.isError}`,
      );
      // Sequential ends are in source order; parallel ones in completion order.
      if (toolExecution === 'sequential') {
        expect(endFlags).toEqual(['ok1:false', 'boom:true', 'str:true', 'ok2:false']);
      } else {
        expect([...endFlags].sort()).toEqual(['boom:true', 'ok1:false', 'ok2:false', 'str:true']);
      }
      expect(harness.model.requests).toHaveLength(2);
      expectEveryToolCallAnswered(harness.transcript.messages);
    },
  );
});
