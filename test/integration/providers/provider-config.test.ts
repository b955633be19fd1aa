import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getModels, type Api, type Model } from '@mariozechner/pi-ai';
import { buildJobInput } from '../../../src/job-input/build-job-input.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import {
  MissingApiKeyError,
  configuredApiKeys,
  readApiKey,
} from '../../../src/providers/api-keys.js';
import { ModelSetupError, buildModel } from '../../../src/providers/pi-ai-models.js';
import { realProviderSpec, type RealProviderSpec } from '../../../src/providers/real-providers.js';
import { knownProviders } from '../../../src/providers/registry.js';
import { REDACTED, scrubJson, scrubText } from '../../../src/providers/secret-scrub.js';
import { temporaryFolder } from '../../support/agent-harness.js';

/** Keys, base URLs, model building, scrubbing and `--model` validation. No server needed. */

function spec(name: string): RealProviderSpec {
  const found = realProviderSpec(name);
  if (!found) throw new Error(`no provider ${name}`);
  return found;
}

test('the registry knows the scripted and the three real providers', () => {
  expect(knownProviders()).toEqual(['scripted', 'anthropic', 'openai', 'openai-compatible']);
});

describe('readApiKey', () => {
  test('from the variable (trimmed), else from the file named by <VARIABLE>_FILE', () => {
    const folder = temporaryFolder();
    const file = join(folder, 'key');
    writeFileSync(file, 'sk-from-file-123\n');
    expect(readApiKey(spec('anthropic'), { ANTHROPIC_API_KEY: ' sk-direct-123 ' })).toBe(
      'sk-direct-123',
    );
    expect(readApiKey(spec('anthropic'), { ANTHROPIC_API_KEY_FILE: file })).toBe(
      'sk-from-file-123',
    );
    expect(readApiKey(spec('openai'), { OPENAI_API_KEY: '', OPENAI_API_KEY_FILE: file })).toBe(
      'sk-from-file-123',
    );
  });

  test('a missing key names the variable; a bad key file names the file', () => {
    expect(() => readApiKey(spec('openai'), {})).toThrow(MissingApiKeyError);
    expect(() => readApiKey(spec('openai'), {})).toThrow(/OPENAI_API_KEY/);
    expect(() => readApiKey(spec('anthropic'), { ANTHROPIC_API_KEY_FILE: '/nope/key' })).toThrow(
      /ANTHROPIC_API_KEY_FILE names \/nope\/key, which cannot be read \(ENOENT\)/,
    );
    const empty = join(temporaryFolder(), 'empty');
    writeFileSync(empty, '\n');
    expect(() => readApiKey(spec('anthropic'), { ANTHROPIC_API_KEY_FILE: empty })).toThrow(
      /is empty/,
    );
  });

  test('a compatible server may take no key', () => {
    expect(readApiKey(spec('openai-compatible'), { OPENAI_API_KEY: 'sk-not-this' })).toBe(
      undefined,
    );
  });

  test('configuredApiKeys lists every key on the worker', () => {
    expect(
      configuredApiKeys({
        ANTHROPIC_API_KEY: 'sk-a-12345678',
        OPENAI_API_KEY_FILE: '/does/not/exist',
        DAR_OPENAI_API_KEY: 'sk-c-12345678',
      }),
    ).toEqual(['sk-a-12345678', 'sk-c-12345678']);
  });
});

describe('secret scrubbing', () => {
  const secret = 'sk-test-abcdef123456';

  test('in text and in every string of a JSON value', () => {
    expect(scrubText(`bad key ${secret}!`, [secret])).toBe(`bad key ${REDACTED}!`);
    const value = { a: [secret, { b: `x${secret}y` }], [secret]: 1, n: 2 };
    const scrubbed = scrubJson(value, [secret]);
    expect(JSON.stringify(scrubbed)).not.toContain(secret);
    expect(scrubbed.a[0]).toBe(REDACTED);
    expect(scrubbed.n).toBe(2);
  });

  test('values too short to be keys are left alone; clean values are returned as they are', () => {
    expect(scrubText('a bc abc', ['abc'])).toBe('a bc abc');
    const clean = { text: 'nothing here' };
    expect(scrubJson(clean, [secret])).toBe(clean);
  });
});

describe('buildModel', () => {
  const anthropicModels = getModels('anthropic') as Model<Api>[];

  test('a known id keeps its registry limits and prices, at the configured base URL', () => {
    const model = buildModel(spec('anthropic'), 'claude-haiku-4-5', anthropicModels, {
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999/',
    });
    expect(model).toMatchObject({
      id: 'claude-haiku-4-5',
      api: 'anthropic-messages',
      baseUrl: 'http://127.0.0.1:9999',
      cost: { input: 1, output: 5 },
    });
    expect(buildModel(spec('anthropic'), 'claude-haiku-4-5', anthropicModels, {}).baseUrl).toBe(
      'https://api.anthropic.com',
    );
  });

  test('an unknown id gets a model of its own (no prices)', () => {
    expect(buildModel(spec('anthropic'), 'claude-next', anthropicModels, {})).toMatchObject({
      id: 'claude-next',
      api: 'anthropic-messages',
      provider: 'anthropic',
      cost: { input: 0, output: 0 },
      maxTokens: 8192,
    });
    expect(
      buildModel(spec('openai-compatible'), 'llama3.1:8b', [], {
        DAR_OPENAI_BASE_URL: 'http://localhost:11434/v1',
      }),
    ).toMatchObject({
      id: 'llama3.1:8b',
      api: 'openai-completions',
      baseUrl: 'http://localhost:11434/v1',
      maxTokens: 0,
      compat: { supportsStore: false, maxTokensField: 'max_tokens' },
    });
  });

  test('a compatible server needs a base URL, and a well-formed one', () => {
    expect(() => buildModel(spec('openai-compatible'), 'm', [], {})).toThrow(ModelSetupError);
    expect(() => buildModel(spec('openai-compatible'), 'm', [], {})).toThrow(/DAR_OPENAI_BASE_URL/);
    expect(() =>
      buildModel(spec('openai-compatible'), 'm', [], { DAR_OPENAI_BASE_URL: 'localhost:1234' }),
    ).toThrow(/DAR_OPENAI_BASE_URL must be an http or https URL/);
  });
});

describe('--model validation before anything starts', () => {
  const workspace = temporaryFolder();
  const build = (model: string) => buildJobInput({ prompt: 'hi', model, workspace });
  const saved = process.env.DAR_OPENAI_BASE_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.DAR_OPENAI_BASE_URL;
    else process.env.DAR_OPENAI_BASE_URL = saved;
  });

  test('real provider names are taken as they are, known model id or not', () => {
    expect(build('anthropic:claude-sonnet-4-5').model).toBe('anthropic:claude-sonnet-4-5');
    expect(build('openai:gpt-99').model).toBe('openai:gpt-99');
    expect(build('openai-compatible:qwen2.5-coder:7b').model).toBe(
      'openai-compatible:qwen2.5-coder:7b',
    );
  });

  test('unknown providers, empty ids, whitespace and a malformed base URL are usage errors', () => {
    expect(() => build('gemini:pro')).toThrow(UsageError);
    expect(() => build('gemini:pro')).toThrow(
      /known: scripted, anthropic, openai, openai-compatible/,
    );
    expect(() => build('anthropic:')).toThrow(UsageError);
    expect(() => build('openai:gpt 4')).toThrow(/whitespace/);
    process.env.DAR_OPENAI_BASE_URL = 'not a url';
    expect(() => build('openai-compatible:m')).toThrow(/DAR_OPENAI_BASE_URL is not a URL/);
  });
});
