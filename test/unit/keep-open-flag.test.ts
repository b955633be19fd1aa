import { buildJobInput } from '../../src/job-input/build-job-input.js';
import { parseKeepOpen } from '../../src/job-input/keep-open-flag.js';
import { UsageError } from '../../src/job-input/usage-error.js';
import { jobInputProblems } from '../../src/workflows/job-input-schema.js';

test('--keep-open takes durations in ms, s, m and h', () => {
  expect(parseKeepOpen('30s')).toBe(30_000);
  expect(parseKeepOpen('10m')).toBe(600_000);
  expect(parseKeepOpen('2h')).toBe(7_200_000);
  expect(parseKeepOpen('1.5h')).toBe(5_400_000);
  expect(parseKeepOpen('500ms')).toBe(500);
});

test.each(['', '10', '5 minutes', '-1m', '0s', '2d', 'soon', '1e3s'])(
  '--keep-open refuses "%s" with a usage error naming the flag and the forms it takes',
  (text) => {
    expect(() => parseKeepOpen(text)).toThrow(UsageError);
    expect(() => parseKeepOpen(text)).toThrow(
      `--keep-open must be a duration such as 30s, 10m or 2h (a number and ms, s, m or h), not "${text}"`,
    );
  },
);

test('--keep-open takes up to 100 years, and refuses a longer one naming the maximum', () => {
  expect(parseKeepOpen('876000h')).toBe(100 * 365 * 86_400_000);
  for (const text of ['876001h', '99999999999h', `${'9'.repeat(400)}h`]) {
    expect(() => parseKeepOpen(text)).toThrow(UsageError);
    expect(() => parseKeepOpen(text)).toThrow(
      `--keep-open must be at most 100 years, not "${text}"`,
    );
  }
});

test('the job input carries keepOpenMs, and it passes the schema the workflow checks at entry', () => {
  const input = buildJobInput({
    prompt: 'hello',
    model: 'scripted:examples/demo-script.json',
    workspace: 'examples/workspace',
    keepOpenMs: parseKeepOpen('10m'),
  });
  expect(input.keepOpenMs).toBe(600_000);
  expect(jobInputProblems(input)).toEqual([]);
  const without = buildJobInput({
    prompt: 'hello',
    model: 'scripted:examples/demo-script.json',
    workspace: 'examples/workspace',
  });
  expect('keepOpenMs' in without).toBe(false);
});
