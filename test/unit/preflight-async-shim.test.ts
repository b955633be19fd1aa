import { Type } from '@sinclair/typebox';
import { HostFailure, type ToolSpec } from '../../src/core/index.js';
import { immediateText, preflight } from './support/preflight.js';

/** A tool whose shim is asynchronous, as a worker-side shim run through a local activity is. */
function toolWithShim(shim: (raw: unknown) => Promise<unknown>): ToolSpec {
  return {
    name: 'greet',
    label: 'Greet',
    description: 'Greets.',
    parameters: Type.Object({ name: Type.String() }),
    prepareArguments: shim,
  };
}

const call = { type: 'toolCall' as const, id: 'g1', name: 'greet', arguments: { who: 'Ada' } };

test('R7: an asynchronous shim is awaited and its output validated (R8)', async () => {
  const lifted = await preflight(
    [toolWithShim(async (raw) => ({ name: (raw as { who: string }).who }))],
    call,
  );
  expect(lifted).toMatchObject({ kind: 'prepared', args: { name: 'Ada' } });
  const wrong = await preflight([toolWithShim(async () => ({}))], call);
  expect(immediateText(wrong)).toMatch(/name: must have required properties name/);
});

test("R7: an asynchronous shim's rejection is the call's error result; a HostFailure is not", async () => {
  const rejected = await preflight(
    [toolWithShim(() => Promise.reject(new Error('no legacy')))],
    call,
  );
  expect(immediateText(rejected)).toBe('no legacy');
  await expect(
    preflight([toolWithShim(() => Promise.reject(new HostFailure('no tools here')))], call),
  ).rejects.toThrow('no tools here');
});
