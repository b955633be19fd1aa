/** Error type of an argument shim that threw: the call's error result carries its message (R7). */
export const ARGUMENT_SHIM_FAILURE = 'ArgumentShimFailure';

/** Error type of a worker that runs no tools (a read-only worker): another worker answers. */
export const NO_TOOLS_HERE = 'NoToolsOnThisWorker';
