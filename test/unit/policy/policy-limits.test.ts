import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildJobInput } from '../../../src/job-input/build-job-input.js';
import { UsageError } from '../../../src/job-input/usage-error.js';
import {
  MAXIMUM_POLICY_PATTERN_LENGTH,
  MAXIMUM_POLICY_REASON_LENGTH,
  MAXIMUM_POLICY_RULES,
  checkPolicyLimits,
  parsePolicy,
} from '../../../src/policy/index.js';

const rule = (extra: object = {}) => ({ tool: 'bash', reason: 'no shell', ...extra });

test('a policy within the limits passes, at every limit exactly', () => {
  const policy = parsePolicy({
    rules: [
      ...Array.from({ length: MAXIMUM_POLICY_RULES - 1 }, () => rule()),
      rule({
        reason: 'r'.repeat(MAXIMUM_POLICY_REASON_LENGTH),
        argument: 'command',
        pattern: 'a'.repeat(MAXIMUM_POLICY_PATTERN_LENGTH),
      }),
    ],
  });
  expect(() => checkPolicyLimits(policy)).not.toThrow();
});

test('a reason, a pattern or a rule list over its limit is refused, naming the rule and the limit', () => {
  const longReason = parsePolicy({
    rules: [rule(), rule({ reason: 'r'.repeat(MAXIMUM_POLICY_REASON_LENGTH + 1) })],
  });
  expect(() => checkPolicyLimits(longReason)).toThrow(
    `Invalid policy: rules[1].reason: has ${MAXIMUM_POLICY_REASON_LENGTH + 1} characters, over the limit of ${MAXIMUM_POLICY_REASON_LENGTH}`,
  );
  const longPattern = parsePolicy({
    rules: [rule({ argument: 'command', pattern: 'a'.repeat(MAXIMUM_POLICY_PATTERN_LENGTH + 1) })],
  });
  expect(() => checkPolicyLimits(longPattern)).toThrow(
    /^Invalid policy: rules\[0\]\.pattern: has /,
  );
  const many = parsePolicy({
    rules: Array.from({ length: MAXIMUM_POLICY_RULES + 1 }, () => rule()),
  });
  expect(() => checkPolicyLimits(many)).toThrow(
    `Invalid policy: rules: has ${MAXIMUM_POLICY_RULES + 1} rules, over the limit of ${MAXIMUM_POLICY_RULES}`,
  );
});

test('dar run --policy refuses a policy file over a limit before anything starts (usage error)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-policy-limits-'));
  const file = join(folder, 'policy.json');
  writeFileSync(file, JSON.stringify({ rules: [rule({ reason: 'r'.repeat(5000) })] }));
  const build = () =>
    buildJobInput({
      prompt: 'hello',
      model: 'scripted:examples/demo-script.json',
      workspace: 'examples/workspace',
      policy: file,
    });
  expect(build).toThrow(UsageError);
  expect(build).toThrow(
    `Policy file ${file}: Invalid policy: rules[0].reason: has 5000 characters`,
  );
});
