import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECURITY_HEADERS } from './http-responses.js';

/** The pages, styles and scripts of the console: `web/` at the package's root. */
export const WEB_FOLDER = fileURLToPath(new URL('../../web/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};

/** Pages by their address; other files are served under their own name. */
const PAGES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/job': 'job.html',
  '/approvals': 'approvals.html',
};

/**
 * The console's static files. Only the files found in `web/` when the console starts are
 * served, each by its plain name (`/console.css`): no request path reaches any other file.
 */
export class StaticFiles {
  private readonly files: ReadonlySet<string>;

  constructor(private readonly folder = WEB_FOLDER) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`The console's pages are missing (${folder}): ${reason}`, { cause: error });
    }
    this.files = new Set(names.filter((name) => /^[a-z][a-z0-9-]*\.(html|css|js|png)$/.test(name)));
  }

  /** Whether `pathname` is a page (an address the login link may name). */
  isPage(pathname: string): boolean {
    return Object.hasOwn(PAGES, pathname);
  }

  /** The file `pathname` names, if it is one of the console's. */
  fileOf(pathname: string): string | undefined {
    const name = Object.hasOwn(PAGES, pathname) ? PAGES[pathname] : pathname.slice(1);
    return name !== undefined && this.files.has(name) ? name : undefined;
  }

  /** Sends the file (a name that `fileOf` gave). */
  send(response: ServerResponse, name: string, headOnly: boolean): void {
    const body = readFileSync(join(this.folder, name));
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
      'Content-Length': body.length,
    });
    response.end(headOnly ? undefined : body);
  }
}
