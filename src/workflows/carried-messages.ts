import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import type { Message, UserMessage } from '../core/index.js';
import { thinUserMessage } from '../transcript/transcript-nodes.js';
import { storeLocalActivityOptions } from './activity-options.js';

/**
 * Queued messages ride in the input of the run a job continues as new into, and that input is
 * one payload in history. Each message was under the server's limit when it arrived, but several
 * queued together (follow-ups sent while a long run works) could pass it, and a continue-as-new
 * the server refuses fails the workflow task for good. Past this many characters together, the
 * queued user messages are stored first and carried by reference (their thin form).
 */
export const CARRIED_MESSAGES_CHARACTERS = 16 * 1024;

/**
 * Marks histories of runs that stored queued messages before continuing as new. Asked only when
 * the threshold is passed, so other jobs (and every history recorded before) keep their commands.
 */
export const STORE_CARRIED_MESSAGES_PATCH = 'dar-store-carried-messages';

const { storeCarriedMessages } = proxyLocalActivities<AgentActivities>(storeLocalActivityOptions);

/** The queues a job hands to its next run. */
export interface CarriedQueues {
  steering: Message[];
  followUps: Message[];
  pending: Message[];
}

function characters(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += JSON.stringify(message).length;
  return total;
}

function isWhole(message: Message): message is UserMessage {
  return message.role === 'user' && message.ref === undefined;
}

/**
 * The queues as the next run's input should carry them: as they are while they are small, or
 * with every user message not stored yet stored and replaced by its thin form. Other roles (a
 * thin assistant message, a tool result) are small already and stay as they are.
 */
export async function queuesToCarry(queues: CarriedQueues): Promise<CarriedQueues> {
  const all = [...queues.steering, ...queues.followUps, ...queues.pending];
  if (characters(all) <= CARRIED_MESSAGES_CHARACTERS) return queues;
  if (!patched(STORE_CARRIED_MESSAGES_PATCH)) return queues;
  const whole = all.filter(isWhole);
  const { refs } = await storeCarriedMessages({ messages: whole });
  const thin = new Map<Message, Message>();
  whole.forEach((message, index) => {
    const ref = refs[index];
    if (ref === undefined) throw new Error('The store gave fewer references than messages');
    thin.set(message, thinUserMessage(message, ref));
  });
  const thinned = (messages: Message[]) => messages.map((message) => thin.get(message) ?? message);
  return {
    steering: thinned(queues.steering),
    followUps: thinned(queues.followUps),
    pending: thinned(queues.pending),
  };
}
