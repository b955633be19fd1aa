import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelScript } from '../../../src/providers/model-script.js';
import { scriptedProvider } from '../../../src/providers/scripted-provider.js';

function script(answers: unknown[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dar-usage-')), 'script.json');
  writeFileSync(path, JSON.stringify(answers));
  return path;
}

const answer = { content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' };

test('a scripted answer may report usage; the provider returns it, totals and cost included', async () => {
  const path = script([{ ...answer, usage: { input: 70, output: 30, costUsd: 0.02 } }, answer]);
  const provider = scriptedProvider(path);
  const context = { signal: new AbortController().signal, heartbeat: () => {} };
  const request = { systemPrompt: 's', messages: [], tools: [] };
  const first = await provider.call(request, { ...context, callIndex: 0 });
  expect(first.usage).toMatchObject({ input: 70, output: 30, totalTokens: 100 });
  expect(first.usage.cost.total).toBe(0.02);
  const second = await provider.call(request, { ...context, callIndex: 1 });
  expect(second.usage.totalTokens).toBe(0);
});

test.each([
  [{ input: -1 }, '"usage.input" must be a non-negative number'],
  [{ output: '3' }, '"usage.output" must be a non-negative number'],
  [{ tokens: 3 }, '"usage.tokens" is not known'],
  [[1], '"usage" must be an object'],
])('a bad usage (%j) names the flaw', (usage, problem) => {
  const path = script([{ ...answer, usage }]);
  expect(() => loadModelScript(path)).toThrow(`answer 1: ${problem}`);
});

test('a script with no answers is refused when it is read (before any job starts), and answers count from 1 like model calls', async () => {
  expect(() => loadModelScript(script([]))).toThrow(
    'top level: has no answers (model call 1 takes answer 1)',
  );
  expect(() => loadModelScript(script([answer, { content: [] }]))).toThrow(
    'answer 2: "stopReason" must be one of',
  );
  // One answer, two calls: the second is told the script is used up, in the singular.
  const provider = scriptedProvider(script([answer]));
  const context = { signal: new AbortController().signal, heartbeat: () => {} };
  const request = { systemPrompt: 's', messages: [], tools: [] };
  const second = await provider.call(request, { ...context, callIndex: 1 });
  expect(second.errorMessage).toMatch(/is used up: it has 1 answer and this is model call 2$/);
});
