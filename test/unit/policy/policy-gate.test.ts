import {
  indexTools,
  preflightToolCall,
  type AssistantMessage,
  type ToolCall,
} from '../../../src/core/index.js';
import { parsePolicy } from '../../../src/policy/policy-file.js';
import { createPolicyGate } from '../../../src/policy/policy-gate.js';
import { builtinToolSpecList } from '../../../src/tools/specs/index.js';
import { callOf } from './gate-test-context.js';

const workspace = '/work/space';
const policy = parsePolicy({
  rules: [
    { tool: 'bash', argument: 'command', pattern: 'rm\\s+-rf', reason: 'no recursive deletes' },
    { tool: '*', argument: 'path', pattern: '(^|/)\\.env$', reason: 'no .env files' },
    { tool: 'deploy', reason: 'deploys need a human' },
  ],
});
const gate = createPolicyGate({ workspace, policy });

describe('policy gate', () => {
  it('R10: a rule without a pattern blocks every call of its tool', async () => {
    expect(await gate(callOf('deploy', {}))).toEqual({
      block: true,
      reason: 'deploys need a human',
    });
  });

  it('R10: a pattern rule blocks only when the argument matches', async () => {
    expect(await gate(callOf('bash', { command: 'cd build && rm  -rf dist' }))).toEqual({
      block: true,
      reason: 'no recursive deletes',
    });
    expect(await gate(callOf('bash', { command: 'rm dist/a.js' }))).toBeUndefined();
    expect(await gate(callOf('bash', { timeout: 5 }))).toBeUndefined();
  });

  it('R10: * matches any tool', async () => {
    expect(await gate(callOf('read', { path: 'config/.env' }))).toEqual({
      block: true,
      reason: 'no .env files',
    });
    expect(await gate(callOf('write', { path: '.env', content: '' }))).toMatchObject({
      reason: 'no .env files',
    });
    expect(await gate(callOf('read', { path: '.envrc' }))).toBeUndefined();
  });

  it('ignores a non-string argument value', async () => {
    expect(await gate(callOf('custom', { path: ['.env'] }))).toBeUndefined();
  });

  it('R10: the workspace rule comes first and applies without a policy file', async () => {
    const workspaceOnly = createPolicyGate({ workspace });
    expect(await workspaceOnly(callOf('read', { path: '../.env' }))).toMatchObject({
      block: true,
      reason: expect.stringContaining('outside the workspace') as unknown,
    });
    expect(await gate(callOf('read', { path: '../.env' }))).toMatchObject({
      reason: expect.stringContaining('outside the workspace') as unknown,
    });
    expect(await workspaceOnly(callOf('bash', { command: 'rm -rf /' }))).toBeUndefined();
  });

  it('gives the same answer every time (deterministic, no state between calls)', async () => {
    const call = callOf('bash', { command: 'rm -rf x' });
    const answers = await Promise.all([gate(call), gate(call), gate(call)]);
    expect(answers).toEqual([answers[0], answers[0], answers[0]]);
  });

  it('R10: in the preflight, a block becomes an error result carrying the reason', async () => {
    const toolCall: ToolCall = {
      type: 'toolCall',
      id: 'call-7',
      name: 'bash',
      arguments: { command: 'rm -rf /' },
    };
    const { assistantMessage, context } = callOf('bash', {});
    const message: AssistantMessage = { ...assistantMessage, content: [toolCall] };
    const outcome = await preflightToolCall({
      assistantMessage: message,
      toolCall,
      tools: indexTools(builtinToolSpecList),
      context,
      beforeToolCall: gate,
      isAborted: () => false,
    });
    expect(outcome).toMatchObject({
      kind: 'immediate',
      isError: true,
      result: { content: [{ type: 'text', text: 'no recursive deletes' }] },
    });
  });
});

describe('policy patterns in linear time', () => {
  it('R10: `^(a+)+$` against 100,000 characters decides at once (no catastrophic backtracking)', async () => {
    const nested = createPolicyGate({
      workspace,
      policy: parsePolicy({
        rules: [{ tool: 'bash', argument: 'command', pattern: '^(a+)+$', reason: 'only a' }],
      }),
    });
    const started = Date.now();
    // A backtracking engine needs about 2^100000 steps for this input.
    expect(await nested(callOf('bash', { command: `${'a'.repeat(100_000)}!` }))).toBeUndefined();
    expect(await nested(callOf('bash', { command: 'a'.repeat(100_000) }))).toEqual({
      block: true,
      reason: 'only a',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses, when the gate is made, a policy that skipped parsePolicy and holds a backreference', () => {
    const unchecked = {
      rules: [{ tool: 'bash', argument: 'command', pattern: '(x)\\1', reason: 'no' }],
    };
    expect(() => createPolicyGate({ workspace, policy: unchecked })).toThrow(
      /backreferences and lookaround are not supported/,
    );
  });
});
