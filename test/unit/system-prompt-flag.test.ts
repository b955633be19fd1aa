import { MAXIMUM_SYSTEM_PROMPT_LENGTH } from '../../src/core/limits.js';
import { buildJobInput } from '../../src/job-input/build-job-input.js';
import { UsageError } from '../../src/job-input/usage-error.js';

const flags = {
  prompt: 'hello',
  model: 'scripted:examples/demo-script.json',
  workspace: 'examples/workspace',
};

test('a system prompt over the limit is a usage error naming its length, before anything starts', () => {
  const build = () =>
    buildJobInput({ ...flags, systemPrompt: 's'.repeat(MAXIMUM_SYSTEM_PROMPT_LENGTH + 1) });
  expect(build).toThrow(UsageError);
  expect(build).toThrow(
    `The system prompt has ${MAXIMUM_SYSTEM_PROMPT_LENGTH + 1} characters, over the limit of ${MAXIMUM_SYSTEM_PROMPT_LENGTH}`,
  );
  const atLimit = 's'.repeat(MAXIMUM_SYSTEM_PROMPT_LENGTH);
  expect(buildJobInput({ ...flags, systemPrompt: atLimit }).systemPrompt).toBe(atLimit);
});
