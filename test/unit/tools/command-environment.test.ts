import { bashTool } from '../../../src/tools/index.js';
import { commandEnvironment } from '../../../src/tools/command-environment.js';
import { createTemporaryFolders, createToolContext, textOf } from './tool-test-context.js';

test('R25: provider keys and other secrets are removed from a command environment', () => {
  const kept = commandEnvironment({
    PATH: '/usr/bin',
    HOME: '/root',
    ANTHROPIC_API_KEY: 'sk-ant-1',
    OPENAI_API_KEY: 'sk-2',
    OPENAI_BASE_URL: 'http://x',
    GITHUB_TOKEN: 'ghp',
    DB_PASSWORD: 'pw',
    TEMPORAL_API_KEY: 'tk',
    TEMPORAL_ADDRESS: 'localhost:7233',
  });
  expect(kept).toEqual({ PATH: '/usr/bin', HOME: '/root', TEMPORAL_ADDRESS: 'localhost:7233' });
});

test('R25: DAR_BASH_PASS_ENV lets named variables through', () => {
  const kept = commandEnvironment({
    NPM_TOKEN: 'npm',
    GITHUB_TOKEN: 'gh',
    DAR_BASH_PASS_ENV: 'NPM_TOKEN',
  });
  expect(kept).toEqual({ NPM_TOKEN: 'npm', DAR_BASH_PASS_ENV: 'NPM_TOKEN' });
});

test('R25: a bash command cannot print the worker API key', async () => {
  const secret = `sk-test-${Math.random().toString(36).slice(2)}`;
  process.env.OPENAI_API_KEY = secret;
  const folders = await createTemporaryFolders();
  try {
    const result = await bashTool.execute({ command: 'env' }, createToolContext(folders.workspace));
    const output = textOf(result);
    expect(output).toContain('PATH=');
    expect(output).not.toContain(secret);
  } finally {
    delete process.env.OPENAI_API_KEY;
    await folders.remove();
  }
});
