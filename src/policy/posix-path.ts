/**
 * A small posix path normaliser for workflow code, where `node:path` is not available. Purely
 * lexical: it knows nothing about symlinks (the tool bodies check real locations at run time).
 */

/** Collapses `.`, `..`, repeated and trailing slashes. `..` above the root stays at the root. */
export function normalizePosixPath(path: string): string {
  const absolute = path.startsWith('/');
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      const last = segments[segments.length - 1];
      if (last !== undefined && last !== '..') segments.pop();
      else if (!absolute) segments.push('..');
      continue;
    }
    segments.push(segment);
  }
  const joined = segments.join('/');
  if (absolute) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** `path` taken relative to `base` (an absolute path), unless it is absolute itself. */
export function resolvePosixPath(base: string, path: string): string {
  return normalizePosixPath(path.startsWith('/') ? path : `${base}/${path}`);
}

/** Whether the normalised absolute `path` is `root` or lies below it. */
export function isPosixPathInside(root: string, path: string): boolean {
  const normalizedRoot = normalizePosixPath(root);
  const normalizedPath = normalizePosixPath(path);
  if (normalizedRoot === '/') return normalizedPath.startsWith('/');
  return normalizedPath === normalizedRoot || normalizedPath.startsWith(`${normalizedRoot}/`);
}
