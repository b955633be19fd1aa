import { parsePolicy, MAX_APPROVAL_TIMEOUT_MS } from '../../../src/policy/policy-file.js';
import { createPolicyGate } from '../../../src/policy/policy-gate.js';
import { callOf } from './gate-test-context.js';

const workspace = '/work/space';

describe('R22: approval rules in the policy file', () => {
  it('R22: parses approve, timeoutMs and onTimeout', () => {
    const policy = parsePolicy({
      rules: [
        { tool: 'bash', reason: 'shell needs a look', approve: true },
        {
          tool: 'bash',
          argument: 'command',
          pattern: '^git push',
          reason: 'pushes',
          approve: true,
          timeoutMs: 60_000,
          onTimeout: 'allow',
        },
        { tool: 'write', reason: 'writes', approve: true, timeoutMs: MAX_APPROVAL_TIMEOUT_MS },
      ],
    });
    expect(policy.rules).toEqual([
      { tool: 'bash', reason: 'shell needs a look', approve: true },
      {
        tool: 'bash',
        argument: 'command',
        pattern: '^git push',
        reason: 'pushes',
        approve: true,
        timeoutMs: 60_000,
        onTimeout: 'allow',
      },
      { tool: 'write', reason: 'writes', approve: true, timeoutMs: MAX_APPROVAL_TIMEOUT_MS },
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['approve false', { approve: false }, 'rules[0].approve: must be true'],
    ['approve as text', { approve: 'yes' }, 'rules[0].approve: must be true'],
    [
      'timeoutMs without approve',
      { timeoutMs: 1000 },
      'rules[0].timeoutMs: is only allowed on a rule with "approve": true',
    ],
    [
      'onTimeout without approve',
      { onTimeout: 'deny' },
      'rules[0].onTimeout: is only allowed on a rule with "approve": true',
    ],
    ['timeoutMs zero', { approve: true, timeoutMs: 0 }, 'rules[0].timeoutMs: must be a whole'],
    ['timeoutMs fractional', { approve: true, timeoutMs: 1.5 }, 'rules[0].timeoutMs: must be'],
    ['timeoutMs as text', { approve: true, timeoutMs: '5m' }, 'rules[0].timeoutMs: must be'],
    [
      'timeoutMs over 30 days',
      { approve: true, timeoutMs: MAX_APPROVAL_TIMEOUT_MS + 1 },
      'rules[0].timeoutMs: must be a whole number of milliseconds from 1 to 2592000000 (30 days)',
    ],
    [
      'onTimeout unknown',
      { approve: true, timeoutMs: 5, onTimeout: 'approve' },
      'rules[0].onTimeout: must be "deny" or "allow"',
    ],
    [
      'onTimeout without timeoutMs',
      { approve: true, onTimeout: 'allow' },
      'rules[0].onTimeout: needs "timeoutMs"',
    ],
  ])('R22: rejects %s with a clear message', (_case, fields, message) => {
    expect(() => parsePolicy({ rules: [{ tool: 'bash', reason: 'r', ...fields }] })).toThrow(
      `Invalid policy: ${message}`,
    );
  });

  const gate = createPolicyGate({
    workspace,
    policy: parsePolicy({
      rules: [
        {
          tool: 'bash',
          argument: 'command',
          pattern: '^git push',
          reason: 'pushes a branch',
          approve: true,
          timeoutMs: 5000,
          onTimeout: 'allow',
        },
        { tool: 'write', reason: 'writes need a look', approve: true },
        { tool: 'bash', argument: 'command', pattern: '--force', reason: 'no force' },
        { tool: 'edit', reason: 'edits too', approve: true, timeoutMs: 10 },
      ],
    }),
  });

  it('R22: a matching approval rule asks, with its reason, deadline and default', async () => {
    expect(await gate(callOf('bash', { command: 'git push origin x' }))).toEqual({
      approval: { reason: 'pushes a branch', timeoutMs: 5000, onTimeout: 'approve' },
    });
    expect(await gate(callOf('write', { path: 'a', content: '' }))).toEqual({
      approval: { reason: 'writes need a look' },
    });
    expect(await gate(callOf('edit', { path: 'a', edits: [] }))).toEqual({
      approval: { reason: 'edits too', timeoutMs: 10, onTimeout: 'deny' },
    });
    expect(await gate(callOf('bash', { command: 'ls' }))).toBeUndefined();
  });

  it('R22, R10: a blocking rule wins over an earlier approval rule', async () => {
    expect(await gate(callOf('bash', { command: 'git push --force' }))).toEqual({
      block: true,
      reason: 'no force',
    });
  });

  it('R22, R10: the workspace rule blocks before any approval is asked', async () => {
    expect(await gate(callOf('write', { path: '../x', content: '' }))).toMatchObject({
      block: true,
    });
  });
});
