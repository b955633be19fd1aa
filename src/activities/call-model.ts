import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AssistantMessage, ModelRequest } from '../core/index.js';
import { resolveModel } from '../providers/registry.js';
import { heartbeatWhile } from './heartbeat-while.js';

export interface CallModelInput {
  /** `provider:model-id`. Never a key: providers read secrets themselves (R25). */
  model: string;
  request: ModelRequest;
}

/** The model call of one turn (R1). */
export async function callModel(input: CallModelInput): Promise<AssistantMessage> {
  let provider;
  try {
    provider = resolveModel(input.model);
  } catch (error) {
    throw ApplicationFailure.nonRetryable((error as Error).message, 'ModelConfigurationError');
  }
  const context = Context.current();
  try {
    return await heartbeatWhile(() =>
      provider.call(input.request, {
        signal: context.cancellationSignal,
        heartbeat: (details) => context.heartbeat(details),
      }),
    );
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('Model call cancelled');
    throw error;
  }
}
