import {
  isPosixPathInside,
  normalizePosixPath,
  resolvePosixPath,
} from '../../../src/policy/posix-path.js';

describe('posix path helpers', () => {
  it.each([
    ['/a/b/../c', '/a/c'],
    ['/a//b/./c/', '/a/b/c'],
    ['/../..', '/'],
    ['/', '/'],
    ['a/../..', '..'],
    ['./a/./b', 'a/b'],
    ['', '.'],
    ['..notes', '..notes'],
  ])('normalises %j to %j', (path, expected) => {
    expect(normalizePosixPath(path)).toBe(expected);
  });

  it('resolves relative paths against the base and keeps absolute ones', () => {
    expect(resolvePosixPath('/work/space', 'src/a.ts')).toBe('/work/space/src/a.ts');
    expect(resolvePosixPath('/work/space', '../other')).toBe('/work/other');
    expect(resolvePosixPath('/work/space', '/etc/passwd')).toBe('/etc/passwd');
  });

  it('tells inside from outside, not fooled by a shared name prefix', () => {
    expect(isPosixPathInside('/work/space', '/work/space')).toBe(true);
    expect(isPosixPathInside('/work/space/', '/work/space/a')).toBe(true);
    expect(isPosixPathInside('/work/space', '/work/spaceship')).toBe(false);
    expect(isPosixPathInside('/work/space', '/work')).toBe(false);
    expect(isPosixPathInside('/', '/anything')).toBe(true);
  });
});
