import { closestName, unknownFlagMessage } from '../../../src/cli/unknown-flag.js';

const runFlags = { model: {}, tools: {}, 'max-turns': {}, 'max-time': {}, json: {}, id: {} };

describe('closestName names the flag or command a typo was meant to be', () => {
  test.each([
    ['--modle', 'model'],
    ['--mdoel', 'model'],
    ['--tool', 'tools'],
    ['--max-turn', 'max-turns'],
    ['--maxturns', 'max-turns'],
    ['--jsno', 'json'],
    ['--max-tiem=30m', 'max-time'],
  ])('%s -> --%s', (typed, expected) => {
    expect(closestName(typed, Object.keys(runFlags))).toBe(expected);
  });

  test.each([['--bogus'], ['--verbose'], ['-x'], ['--']])('nothing close to %s', (typed) => {
    expect(closestName(typed, Object.keys(runFlags))).toBeUndefined();
  });
});

test('the message names the flag, the suggestion when there is one, and where the list is', () => {
  expect(unknownFlagMessage('run', '--modle', runFlags)).toBe(
    'dar run: unknown option --modle (did you mean --model?); `dar help run` lists the options',
  );
  expect(unknownFlagMessage('status', '--bogus', { json: {}, 'state-dir': {} })).toBe(
    'dar status: unknown option --bogus; `dar help status` lists the options',
  );
});
