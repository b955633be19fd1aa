import {
  checkNewJobId,
  JobIdError,
  jobIdProblem,
  MAXIMUM_JOB_ID_BYTES,
} from '../../../src/client/job-id.js';

test('an id of printable characters up to 255 bytes names a job; its bytes are counted in UTF-8', () => {
  expect(jobIdProblem('agent-3f2a.fix_bug:7#12@host/main')).toBeUndefined();
  expect(jobIdProblem('x'.repeat(MAXIMUM_JOB_ID_BYTES))).toBeUndefined();
  // 127 two-byte characters and one byte: 255 bytes; one two-byte character more passes it.
  expect(jobIdProblem(`${'ü'.repeat(127)}x`)).toBeUndefined();
  expect(jobIdProblem('ü'.repeat(128))).toBe('has 256 bytes, over the limit of 255');
});

test('an empty id, and one with a space, a control or an invisible character, is refused naming where', () => {
  expect(jobIdProblem('')).toBe('is empty');
  expect(jobIdProblem('job\u0000')).toBe(
    'holds a space or unprintable character (U+0000) at character 4',
  );
  expect(jobIdProblem('a\nb')).toMatch(/\(U\+000A\) at character 2$/);
  expect(jobIdProblem('zero\u200bwidth')).toMatch(/\(U\+200B\) at character 5$/);
  expect(jobIdProblem('no\u00a0break')).toMatch(/\(U\+00A0\) at character 3$/);
  // Counted in characters as a reader sees them: an emoji is one, not two UTF-16 units.
  expect(jobIdProblem('\u{1F680}launch day')).toMatch(/\(U\+0020\) at character 8$/);
});

test('the error quotes at most 60 characters of the id, whatever its size', () => {
  const huge = 'h'.repeat(1_000_000);
  const error = (() => {
    try {
      checkNewJobId(huge);
    } catch (thrown) {
      return thrown;
    }
    return undefined;
  })();
  expect(error).toBeInstanceOf(JobIdError);
  expect(error).toBeInstanceOf(RangeError);
  const message = (error as JobIdError).message;
  expect(message).toBe(
    `The job id "${'h'.repeat(60)}..." has 1000000 bytes, over the limit of 255`,
  );
  expect((error as JobIdError).jobId).toBe(huge);
});
