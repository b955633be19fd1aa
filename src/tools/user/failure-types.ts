/** Error type of an argument shim that threw: the call's error result carries its message (R7). */
export const ARGUMENT_SHIM_FAILURE = 'ArgumentShimFailure';

/** Error type of a worker that runs no tools (a read-only worker): another worker answers. */
export const NO_TOOLS_HERE = 'NoToolsOnThisWorker';

/** Error type of a job whose worker tools are too large together: the job fails as `BadInput`. */
export const TOOLS_TOO_LARGE = 'ToolDescriptionsTooLarge';
