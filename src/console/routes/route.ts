import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import type { JobStore } from '../../store/job-store.js';
import type { ReadObject } from '../../transcript/transcript-nodes.js';

/** What the console's routes read and act on. */
export interface ConsoleServices {
  /** The Temporal client: lists jobs, describes and cancels them. */
  client: Client;
  /** The job store: the jobs' events and status. */
  store: JobStore;
  /** Reads stored objects through a cache shared by every request. */
  read: ReadObject;
  /** Asks a running job a query or an update (see `ConsoleServerOptions.askJob`). */
  askJob: AskJob;
}

/**
 * Runs `ask` (a query or an update of the job `jobId`) and resolves with its answer. Contract: it
 * may run `ask` more than once (an update must then carry a fixed update id, so that it is
 * recorded once), and it must not wait forever when no worker runs: answer through a
 * workflow-only worker of its own, or reject.
 */
export type AskJob = <T>(jobId: string, ask: () => Promise<T>) => Promise<T>;

export interface RouteContext {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** The path's `:name` parts, decoded. */
  params: Readonly<Record<string, string>>;
  services: ConsoleServices;
}

/**
 * One API route. `path` is matched segment by segment; a segment `:name` matches any one
 * segment and is given in `params`. Contract for `handle`: it answers the request (or throws
 * an `HttpError`, answered as JSON with its status; any other error is answered 500).
 */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handle(context: RouteContext): Promise<void>;
}

/** The params of `path` when `pathname` matches it, else undefined. */
export function matchPath(path: string, pathname: string): Record<string, string> | undefined {
  const pattern = path.split('/');
  const actual = pathname.split('/');
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return undefined;
      try {
        params[part.slice(1)] = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    } else if (part !== value) {
      return undefined;
    }
  }
  return params;
}
