#!/usr/bin/env node
// The `dar` command. Runs the compiled CLI (`npm run build`, done by `npm ci` through `prepare`).
import { setTimeout } from 'node:timers';
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
// The command is done. Work still under way (a last progress write of a worker that answered a
// read, say) gets a few seconds to finish; then nothing may keep the process from exiting. The
// timer is unref'd, so a process with nothing left exits at once, as before.
setTimeout(() => process.exit(), 5_000).unref();
