/**
 * What `dar events` and `dar status` say, on stderr, of a job that ended and of which the store
 * holds nothing (`storeHoldsNothingOfEndedJob`). They ask only once reading the job found
 * nothing, so a job of the first release (its events in its history) is never taken for one.
 */
export function prunedJobNote(jobId: string): string {
  return (
    `Job ${jobId} has ended, and the job store holds nothing of it: its data was deleted ` +
    '(`dar prune`), or its workers used another store (DAR_STORE_URL).\n'
  );
}
