import {
  checkWorkerEnvironment,
  WorkerSettingError,
} from '../../../src/worker/worker-environment.js';

test('good or unset settings pass', () => {
  expect(() => checkWorkerEnvironment({})).not.toThrow();
  expect(() =>
    checkWorkerEnvironment({
      DAR_STREAMING: 'off',
      DAR_STREAM_RETENTION: 'keep',
      DAR_MODEL_IDLE_TIMEOUT: '90s',
    }),
  ).not.toThrow();
});

test.each([
  [{ DAR_STREAMING: 'sometimes' }, 'DAR_STREAMING must be on or off, not "sometimes"'],
  [{ DAR_STREAM_RETENTION: 'forever' }, 'DAR_STREAM_RETENTION must be drop or keep, not "forever"'],
  [
    { DAR_MODEL_IDLE_TIMEOUT: '0' },
    'DAR_MODEL_IDLE_TIMEOUT must be a duration such as 90s or 5m, or off, not "0"',
  ],
])('a bad setting (%j) is a WorkerSettingError naming it', (environment, message) => {
  expect(() => checkWorkerEnvironment(environment)).toThrow(WorkerSettingError);
  expect(() => checkWorkerEnvironment(environment)).toThrow(message);
});

test('a worker that makes no model calls does not read DAR_MODEL_IDLE_TIMEOUT', () => {
  const environment = { DAR_MODEL_IDLE_TIMEOUT: '0' };
  expect(() => checkWorkerEnvironment(environment, { modelCalls: false })).not.toThrow();
});
