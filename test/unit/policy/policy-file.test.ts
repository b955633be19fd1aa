import { parsePolicy } from '../../../src/policy/policy-file.js';

describe('parsePolicy', () => {
  it('accepts whole-tool rules, pattern rules and the * wildcard', () => {
    const json: unknown = JSON.parse(`{
      "rules": [
        { "tool": "bash", "reason": "no shell here" },
        { "tool": "bash", "argument": "command", "pattern": "rm\\\\s+-rf", "reason": "no recursive deletes" },
        { "tool": "*", "argument": "path", "pattern": "\\\\.env$", "reason": "no .env files" }
      ]
    }`);
    expect(parsePolicy(json)).toEqual({
      rules: [
        { tool: 'bash', reason: 'no shell here' },
        { tool: 'bash', argument: 'command', pattern: 'rm\\s+-rf', reason: 'no recursive deletes' },
        { tool: '*', argument: 'path', pattern: '\\.env$', reason: 'no .env files' },
      ],
    });
  });

  it('returns a copy, not the input', () => {
    const json = { rules: [{ tool: 'bash', reason: 'no' }] };
    const policy = parsePolicy(json);
    expect(policy).not.toBe(json);
    expect(policy.rules[0]).not.toBe(json.rules[0]);
  });

  it('accepts an empty rule list', () => {
    expect(parsePolicy({ rules: [] })).toEqual({ rules: [] });
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'Invalid policy: policy: must be an object with a "rules" array'],
    ['null', null, 'Invalid policy: policy: must be an object with a "rules" array'],
    ['rules missing', {}, 'Invalid policy: rules: must be an array'],
    ['rules not a list', { rules: {} }, 'Invalid policy: rules: must be an array'],
    [
      'unknown top-level field',
      { rules: [], rulez: [] },
      'Invalid policy: rulez: is not a known field',
    ],
    ['rule not an object', { rules: ['bash'] }, 'Invalid policy: rules[0]: must be an object'],
    [
      'tool missing',
      { rules: [{ tool: 'bash', reason: 'a' }, { reason: 'b' }] },
      'Invalid policy: rules[1].tool: is required',
    ],
    [
      'tool empty',
      { rules: [{ tool: '', reason: 'b' }] },
      'Invalid policy: rules[0].tool: must be a non-empty string',
    ],
    [
      'reason missing',
      { rules: [{ tool: 'bash' }] },
      'Invalid policy: rules[0].reason: is required',
    ],
    [
      'reason not text',
      { rules: [{ tool: 'bash', reason: 7 }] },
      'Invalid policy: rules[0].reason: must be a non-empty string',
    ],
    [
      'misspelt field',
      { rules: [{ tool: 'bash', reason: 'a', patern: 'x' }] },
      'Invalid policy: rules[0].patern: is not a known field',
    ],
    [
      'pattern without argument',
      { rules: [{ tool: 'bash', reason: 'a', pattern: 'rm' }] },
      'Invalid policy: rules[0].argument: is required when "pattern" is set',
    ],
    [
      'argument without pattern',
      { rules: [{ tool: 'bash', reason: 'a', argument: 'command' }] },
      'Invalid policy: rules[0].pattern: is required when "argument" is set',
    ],
    [
      'pattern not text',
      { rules: [{ tool: 'bash', reason: 'a', argument: 'command', pattern: 5 }] },
      'Invalid policy: rules[0].pattern: must be a non-empty string',
    ],
  ])('rejects %s with a precise message', (_case, json, message) => {
    expect(() => parsePolicy(json)).toThrow(message);
  });

  it('rejects a pattern that does not compile, naming the rule', () => {
    const json = {
      rules: [
        { tool: 'bash', reason: 'ok' },
        { tool: 'bash', reason: 'bad', argument: 'command', pattern: 'rm (' },
      ],
    };
    expect(() => parsePolicy(json)).toThrow(
      /^Invalid policy: rules\[1\]\.pattern \(rule for tool "bash"\): is not a pattern the linear-time matcher \(RE2\) accepts \(.+\)/,
    );
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', 'rm(?= -rf)'],
    ['a lookbehind', '(?<=sudo )rm'],
  ])('rejects %s, which linear-time matching cannot do, naming the rule', (_kind, pattern) => {
    const json = { rules: [{ tool: 'bash', reason: 'no', argument: 'command', pattern }] };
    expect(() => parsePolicy(json)).toThrow(
      /^Invalid policy: rules\[0\]\.pattern \(rule for tool "bash"\): .*backreferences and lookaround are not supported$/,
    );
  });
});
