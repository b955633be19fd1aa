import { spawn } from 'node:child_process';

/**
 * The guardian's script: wait on standard input, which only this worker holds open; once it
 * closes without a line (the worker died: SIGKILL, a crash, the OOM killer), end the group as
 * `killProcessGroup` does, SIGTERM then SIGKILL after 2 s. `$1` is the group id (no `--`
 * before it: dash's `kill` takes `-ID` as the group but refuses `--`).
 */
const GUARDIAN_SCRIPT =
  'read -r line; kill -TERM "-$1" 2>/dev/null && { sleep 2; kill -KILL "-$1" 2>/dev/null; }; exit 0';

/**
 * Watches a tool's process group on behalf of this worker: if the worker dies while the command
 * runs, the group is ended within moments, instead of running on as an orphan while the job is
 * told the call was interrupted and goes on (a command retried by the model would then run twice
 * at once). The guardian is a small `sh` in a session of its own, so that a signal to the
 * worker's group (Ctrl-C in its terminal) does not end it first; its standard input is a pipe
 * whose other end only this process holds (Node opens pipes close-on-exec, so no other child
 * inherits it), and the kernel closes that end when the process dies however it dies.
 *
 * Returns the release: called once the command has ended (or was stopped by the worker itself),
 * it ends the guardian without touching the group, so that background jobs the command left on
 * purpose (`server &`) keep running as before. A guardian that cannot start (no `sh`) leaves the
 * command unguarded; the call runs as it did without one.
 */
export function guardProcessGroup(groupId: number): () => void {
  const guardian = spawn('sh', ['-c', GUARDIAN_SCRIPT, 'dar-tool-guardian', String(groupId)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  guardian.on('error', () => undefined);
  guardian.stdin.on('error', () => undefined);
  // Neither the guardian nor its pipe keeps the worker's event loop alive.
  guardian.unref();
  (guardian.stdin as unknown as { unref?: () => void }).unref?.();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    guardian.kill('SIGKILL');
    guardian.stdin.destroy();
  };
}
