import { EventEmitter } from 'node:events';
import { stdoutClosed, watchStdout } from '../../../src/cli/closed-output.js';

function writeError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`write ${code}`), { code });
}

test('a closed standard output (EPIPE) aborts stdoutClosed instead of crashing; other write errors still throw', () => {
  const stdout = new EventEmitter();
  watchStdout(stdout);

  // A failure that is not the reader going away is still an error of the command.
  expect(() => stdout.emit('error', writeError('ENOSPC'))).toThrow('write ENOSPC');
  expect(stdoutClosed.aborted).toBe(false);

  // Without the watcher, this emit would throw (an 'error' event with no listener).
  expect(() => stdout.emit('error', writeError('EPIPE'))).not.toThrow();
  expect(stdoutClosed.aborted).toBe(true);

  // Later writes to the closed stream fail too, quietly.
  expect(() => stdout.emit('error', writeError('ERR_STREAM_DESTROYED'))).not.toThrow();
});
