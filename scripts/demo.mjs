#!/usr/bin/env node
// `npm run demo`: the demo job on the embedded default. Copies the sample workspace to
// .dar/demo-workspace (so the repository's copy stays as shipped), then runs, and shows:
//   dar run "Fix the typo in greeting.txt" --model scripted:examples/demo-script.json \
//     --workspace .dar/demo-workspace
// Extra arguments are passed on to `dar run` (for example --detach or --json).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const workspace = join(root, '.dar', 'demo-workspace');
rmSync(workspace, { recursive: true, force: true });
cpSync(join(root, 'examples', 'workspace'), workspace, { recursive: true });

const args = [
  join(root, 'bin', 'dar.js'),
  'run',
  'Fix the typo in greeting.txt',
  '--model',
  'scripted:examples/demo-script.json',
  '--workspace',
  '.dar/demo-workspace',
  ...process.argv.slice(2),
];
console.error(
  `$ dar ${args
    .slice(1)
    .map((arg) => (arg.includes(' ') ? `"${arg}"` : arg))
    .join(' ')}`,
);
const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
