/**
 * What the model is told of a call of a tool that is not replay-safe whose only run was lost
 * (its worker died or shut down, or it timed out) before it ended. Workflow-safe.
 */
export const INTERRUPTED_TOOL_CALL =
  'interrupted: this call may have partially run; check before retrying';

/** Failure type of such a call, when its second attempt finds no ending of the first. */
export const TOOL_INTERRUPTED = 'ToolInterrupted';
