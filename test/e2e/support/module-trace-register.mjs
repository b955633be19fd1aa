// Loaded into a `dar` process with NODE_OPTIONS=--import=<this file>, DAR_TEST_MODULE_TRACE=FILE:
// every module the process imports is appended to FILE as a URL, one a line.
import { register } from 'node:module';

const file = process.env.DAR_TEST_MODULE_TRACE;
if (file) register('./module-trace-hooks.mjs', import.meta.url, { data: { file } });
