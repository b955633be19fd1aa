import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { liveEventView } from '../event-view.js';
import { followJobStream, type StreamCursor } from '../job-stream.js';
import { HttpError, SECURITY_HEADERS } from '../http-responses.js';
import { describedJob } from './described-job.js';
import type { Route } from './route.js';
import { describeStoreError } from '../../store/store-errors.js';

/** A comment line now and then keeps proxies and the browser from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** How long the browser waits before it reconnects (with `Last-Event-ID`). */
const RECONNECT_MS = 2_000;

/**
 * Where to start: the browser's `Last-Event-ID` on a reconnect, else the `after` parameter,
 * else the start. Either is `SEQ` (job events after SEQ, live events from the start) or
 * `SEQ:LIVESEQ` (as each frame's id says).
 */
function cursorOf(lastEventId: string | string[] | undefined, after: string | null): StreamCursor {
  const text = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : after;
  if (text === null || text === '') return { seq: 0, liveSeq: 0 };
  const [seqText = '', liveText = '0', ...rest] = text.split(':');
  const seq = Number(seqText);
  const liveSeq = Number(liveText);
  // Past the safe integers a number names no event: the store would refuse it on every read,
  // and the page would reconnect every 2 s for ever.
  const valid = (value: number) => Number.isSafeInteger(value) && value >= 0;
  if (rest.length > 0 || seqText === '' || !valid(seq) || !valid(liveSeq)) {
    throw new HttpError(400, `after must be SEQ or SEQ:LIVESEQ, not "${text}"`);
  }
  return { seq, liveSeq };
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
 * `GET /api/jobs/:id/events?after=SEQ[:LIVESEQ]`: the job's events as Server-Sent Events, from
 * the job store's streams: those stored now, then each one as it is stored, until the page goes
 * away. A job event is a `job-event` message with the event as JSON (see `eventView`); a live
 * event of a message or tool call still under way (token deltas, tool output, a retried call's
 * `message_void`) is a `live-event` message (see `liveEventView`). Every message's id is
 * `SEQ:LIVESEQ`, the cursor of both streams after it, so that a reconnect resumes with no gap
 * and no duplicate. A read error is sent as a `stream-error` message, then the stream ends and
 * the browser reconnects after the last message it got.
 */
export const jobEventsRoute: Route = {
  method: 'GET',
  path: '/api/jobs/:id/events',
  async handle({ request, response, params, url, services }) {
    const id = params.id ?? '';
    const cursor = cursorOf(request.headers['last-event-id'], url.searchParams.get('after'));
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
      const items = followJobStream(services.store, services.read, id, cursor, stop.signal);
      for await (const item of items) {
        // JSON text has no line breaks, so model or tool text cannot end the frame early.
        const [name, data] =
          item.kind === 'event'
            ? ['job-event', JSON.stringify(item.view)]
            : ['live-event', JSON.stringify(liveEventView(item.event))];
        await writeFrame(
          response,
          `id: ${cursor.seq}:${cursor.liveSeq}\nevent: ${name}\ndata: ${data}\n\n`,
          stop.signal,
        );
      }
    } catch (error) {
      if (!stop.signal.aborted) {
        const message = describeStoreError(error);
        response.write(`event: stream-error\ndata: ${JSON.stringify({ error: message })}\n\n`);
      }
    } finally {
      clearInterval(keepAlive);
      response.end();
    }
  },
};
