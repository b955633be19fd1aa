#!/usr/bin/env node
// The `dar` command. Runs the compiled CLI (`npm run build`, done by `npm ci` through `prepare`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
