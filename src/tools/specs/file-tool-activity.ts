import type { ToolActivityOptions } from '../../core/index.js';

/** File tools are quick, and (declared `replay: 'safe'`) retried after a lost worker (R24). */
export const fileToolActivityOptions: ToolActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { maximumAttempts: 3 },
};
