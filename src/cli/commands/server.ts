import { resolve } from 'node:path';
import {
  resolveConnectionSettings,
  runDevServerForeground,
  stopDevServer,
} from '../../server/index.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

function embeddedStateDir(stateDir: string | undefined): string {
  const settings = resolveConnectionSettings(process.env, stateDir ? { stateDir } : {});
  if (settings.kind !== 'embedded') {
    throw new UsageError('TEMPORAL_ADDRESS is set: `dar server` manages only the embedded server');
  }
  return resolve(settings.stateDir);
}

/** `dar server` runs the embedded dev server in the foreground; `dar server stop` stops it. */
export async function serverCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'server',
    argv,
    { 'state-dir': { type: 'string' } },
    { min: 0, max: 1, names: 'nothing or "stop"' },
  );
  const stateDir = embeddedStateDir(values['state-dir']);
  if (positionals[0] === 'stop') {
    const stopped = await stopDevServer(stateDir);
    console.log(
      stopped ? `Stopped the dev server of ${stateDir}` : `No dev server runs for ${stateDir}`,
    );
    return EXIT_OK;
  }
  if (positionals[0] !== undefined)
    throw new UsageError(`dar server: unknown action "${positionals[0]}"`);
  return runDevServerForeground(stateDir, {
    onProgress: (line) => process.stderr.write(`${line}\n`),
    onReady: (endpoint) =>
      process.stderr.write(
        `Temporal dev server ready at ${endpoint.address}` +
          `${endpoint.uiAddress ? `, UI at http://${endpoint.uiAddress}` : ''}; Ctrl-C stops it.\n`,
      ),
  });
}
