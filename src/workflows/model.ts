/**
 * How conversation content reaches `callModel` (the one place that knows).
 *
 * Putting the whole conversation into every activity input makes history grow quadratically with
 * turns. Instead we send only the messages the worker has not seen yet; the worker keeps the
 * prefix in a cache. When the cache lacks it (another worker, a restart), the activity fails with
 * `ConversationCacheMiss` (non-retryable, so at once) and we resend the whole conversation once.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { CallModelInput } from '../shared/activity-types';
import { MODEL_ERROR_TYPES } from '../shared/activity-types';
import type { ChatMessage, ModelReply } from '../shared/messages-api';
import type { ModelActivities } from './activities';

export interface ConversationCursor {
  key: string;
  /** How many messages of this conversation the worker's cache holds. */
  synced: number;
}

export async function callModelWithConversation(
  llm: ModelActivities,
  request: Omit<CallModelInput, 'conversation'>,
  messages: ChatMessage[],
  cursor: ConversationCursor,
  summary: string,
): Promise<ModelReply> {
  const canDelta = cursor.synced > 0 && cursor.synced <= messages.length;
  const from = canDelta ? cursor.synced : 0;
  const call = (start: number) =>
    llm.callModel.executeWithOptions({ summary }, [
      { ...request, conversation: { key: cursor.key, from: start, messages: messages.slice(start) } },
    ]);
  let out;
  try {
    out = await call(from);
  } catch (err) {
    if (from === 0 || !isCacheMiss(err)) throw err;
    out = await call(0);
  }
  cursor.synced = out.cached;
  return out.reply;
}

function isCacheMiss(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === MODEL_ERROR_TYPES.cacheMiss
  );
}
