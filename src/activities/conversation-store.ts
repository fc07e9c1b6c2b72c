import { ApplicationFailure } from '@temporalio/common';
import type { ConversationDelta } from '../shared/activity-types';
import { MODEL_ERROR_TYPES } from '../shared/activity-types';
import type { ChatMessage } from '../shared/messages-api';

export interface ConversationStoreOptions {
  /** How many conversations to keep. */
  maxConversations?: number;
  /** Upper bound on the summed JSON size (in chars) of all cached conversations. */
  maxChars?: number;
}

interface Entry {
  messages: ChatMessage[];
  chars: number;
}

/**
 * A worker-local LRU cache of agent conversations, keyed by `ConversationDelta.key`.
 *
 * Why: if every `callModel` input carried the whole conversation, workflow history would grow
 * quadratically with the number of turns. The workflow therefore sends only the messages this
 * worker has not seen, and the worker rebuilds the full request from its cached prefix. The
 * cache is only an optimisation: on a miss (another worker, a restart, an eviction) the activity
 * fails with a non-retryable `ConversationCacheMiss` and the workflow resends everything.
 */
export class ConversationStore {
  private readonly entries = new Map<string, Entry>();
  private totalChars = 0;
  private readonly maxConversations: number;
  private readonly maxChars: number;

  constructor(options: ConversationStoreOptions = {}) {
    this.maxConversations = options.maxConversations ?? 500;
    this.maxChars = options.maxChars ?? 50_000_000;
  }

  /** The full message list the delta stands for; throws `ConversationCacheMiss` if the prefix is unknown. */
  resolve(delta: ConversationDelta): ChatMessage[] {
    if (delta.from === 0) return delta.messages;
    const entry = this.entries.get(delta.key);
    if (!entry || entry.messages.length !== delta.from) {
      const held = entry ? `${entry.messages.length} messages` : 'nothing';
      throw ApplicationFailure.create({
        type: MODEL_ERROR_TYPES.cacheMiss,
        nonRetryable: true,
        message:
          `conversation ${delta.key}: the worker cache holds ${held}, the call needs the first ${delta.from}; ` +
          'resend the whole conversation',
      });
    }
    this.touch(delta.key, entry);
    return [...entry.messages, ...delta.messages];
  }

  /** Store the full conversation (request messages plus the reply) for the next delta. */
  remember(key: string, messages: ChatMessage[]): void {
    this.forget(key);
    const entry = { messages, chars: JSON.stringify(messages).length };
    this.entries.set(key, entry);
    this.totalChars += entry.chars;
    this.evict(key);
  }

  /** The number of messages cached for `key` (0 when none). */
  size(key: string): number {
    return this.entries.get(key)?.messages.length ?? 0;
  }

  forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalChars -= entry.chars;
  }

  private touch(key: string, entry: Entry): void {
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** Drop least recently used entries, but never the one just stored (it is the one in use). */
  private evict(keep: string): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxConversations && this.totalChars <= this.maxChars) return;
      if (key !== keep) this.forget(key);
    }
  }
}
