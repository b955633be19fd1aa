import { createWorkspacePolicy } from '../../../src/policy/workspace-policy.js';
import { callOf } from './gate-test-context.js';

const workspace = '/work/space';
const gate = createWorkspacePolicy({ workspace });

describe('workspace policy', () => {
  it.each(['read', 'write', 'edit', 'ls'])(
    'R10: blocks %s on a path that climbs out with ..',
    async (toolName) => {
      expect(await gate(callOf(toolName, { path: '../secrets/key.pem' }))).toEqual({
        block: true,
        reason:
          'Path "../secrets/key.pem" is outside the workspace (it resolves to ' +
          `/work/secrets/key.pem); ${toolName} may only use paths inside /work/space.`,
      });
    },
  );

  it('R10: blocks an absolute path elsewhere, and a sibling sharing the name prefix', async () => {
    expect(await gate(callOf('read', { path: '/etc/passwd' }))).toMatchObject({
      block: true,
      reason: expect.stringContaining('Path "/etc/passwd" is outside the workspace') as unknown,
    });
    expect(await gate(callOf('write', { path: '/work/spaceship/a.txt' }))).toMatchObject({
      block: true,
    });
    expect(await gate(callOf('edit', { path: 'src/../../space2/a.ts' }))).toMatchObject({
      block: true,
    });
  });

  it('lets through relative paths, absolute paths inside, and dips that come back', async () => {
    for (const path of ['src/a.ts', '/work/space/src/a.ts', '/work/space', 'a/../b', '.', '']) {
      expect(await gate(callOf('read', { path }))).toBeUndefined();
    }
    expect(await gate(callOf('edit', { path: '../space/a.ts' }))).toBeUndefined();
  });

  it('lets ls without a path through: it lists the workspace itself', async () => {
    expect(await gate(callOf('ls', {}))).toBeUndefined();
  });

  it('leaves tools it does not confine alone', async () => {
    expect(await gate(callOf('bash', { command: 'cat /etc/passwd' }))).toBeUndefined();
    expect(await gate(callOf('fetch', { path: '/etc/passwd' }))).toBeUndefined();
  });

  it('confines the tools named in pathArguments, by their argument', async () => {
    const custom = createWorkspacePolicy({ workspace, pathArguments: { grep: 'folder' } });
    expect(await custom(callOf('grep', { folder: '/' }))).toMatchObject({ block: true });
    expect(await custom(callOf('read', { path: '/' }))).toBeUndefined();
  });

  it('refuses a workspace that is not absolute', () => {
    expect(() => createWorkspacePolicy({ workspace: 'relative/space' })).toThrow(
      'The workspace must be an absolute path, got "relative/space"',
    );
  });
});
