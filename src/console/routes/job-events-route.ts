import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { hydrateEvent } from '../../transcript/hydrate-event.js';
import { eventView } from '../event-view.js';
import { HttpError, SECURITY_HEADERS } from '../http-responses.js';
import { describedJob } from './described-job.js';
import type { Route } from './route.js';

/** A comment line now and then keeps proxies and the browser from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** How long the browser waits before it reconnects (with `Last-Event-ID`). */
const RECONNECT_MS = 2_000;

/**
 * The sequence number to start after: the browser's `Last-Event-ID` on a reconnect, else the
 * `after` parameter, else 0.
 */
function afterSeqOf(lastEventId: string | string[] | undefined, after: string | null): number {
  const text = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : after;
  if (text === null || text === '') return 0;
  const seq = Number(text);
  if (!Number.isInteger(seq) || seq < 0) {
    throw new HttpError(400, `after must be a sequence number, not "${text}"`);
  }
  return seq;
}

/**
 * Writes one frame; waits while the connection's buffer is full, so that a slow browser does
 * not make the server hold a long job's whole history in memory.
 */
async function writeFrame(
  response: ServerResponse,
  frame: string,
  signal: AbortSignal,
): Promise<void> {
  // (The signal ends the wait when the page goes away: no drain comes then.)
  if (!response.write(frame)) await once(response, 'drain', { signal });
}

/**
 * `GET /api/jobs/:id/events?after=SEQ`: the job's events as Server-Sent Events, from the job
 * store's stream: those stored now, then each one as it is stored, until the page goes away.
 * Each is a `job-event` message whose id is the event's seq and whose data is the event as JSON
 * (see `eventView`); a read error is sent as a `stream-error` message, then the stream ends and
 * the browser reconnects after the last event it got.
 */
export const jobEventsRoute: Route = {
  method: 'GET',
  path: '/api/jobs/:id/events',
  async handle({ request, response, params, url, services }) {
    const id = params.id ?? '';
    const afterSeq = afterSeqOf(request.headers['last-event-id'], url.searchParams.get('after'));
    await describedJob(services, id);
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    response.write(`retry: ${RECONNECT_MS}\n\n`);
    const stop = new AbortController();
    response.once('close', () => stop.abort());
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    try {
      for await (const stored of services.store.followEvents(id, afterSeq, stop.signal)) {
        const event = await hydrateEvent(services.read, stored.seq, stored.event);
        // JSON text has no line breaks, so model or tool text cannot end the frame early.
        const data = JSON.stringify(eventView(event));
        await writeFrame(
          response,
          `id: ${stored.seq}\nevent: job-event\ndata: ${data}\n\n`,
          stop.signal,
        );
      }
    } catch (error) {
      if (!stop.signal.aborted) {
        const message = error instanceof Error ? error.message : String(error);
        response.write(`event: stream-error\ndata: ${JSON.stringify({ error: message })}\n\n`);
      }
    } finally {
      clearInterval(keepAlive);
      response.end();
    }
  },
};
