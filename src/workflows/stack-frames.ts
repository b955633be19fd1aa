/**
 * How many stack frames an `Error` made in workflow code records.
 *
 * Temporal's worker records, for every promise that workflow code creates, where it was made
 * (for the `__stack_trace` query): it makes an `Error` and formats each of its frames through
 * the bundle's source map. A turn of the agent loop creates hundreds of promises, and with V8's
 * default of 10 frames that bookkeeping was the largest single cost of a workflow task. Four
 * frames keep the two that matter (the promise's maker and its caller, after the hook's own)
 * at well under half the cost.
 *
 * Loaded once per workflow thread, before Temporal freezes the sandbox's globals
 * (`preloadModules`, see `workflowBundlerOptions`); imported from workflow code it would throw,
 * since by then `Error` is frozen. It keeps no state.
 */
export const WORKFLOW_STACK_FRAMES = 4;

Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;
