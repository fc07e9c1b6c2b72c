import { ApplicationFailure } from '@temporalio/common';
import { ConversationStore } from '../../src/activities/conversation-store';
import type { ChatMessage } from '../../src/shared/messages-api';

const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const assistant = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

function cacheMiss(fn: () => unknown): ApplicationFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApplicationFailure) return err;
    throw err;
  }
  throw new Error('expected a ConversationCacheMiss');
}

describe('ConversationStore', () => {
  it('returns the delta itself when it starts at 0', () => {
    const store = new ConversationStore();
    expect(store.resolve({ key: 'k', from: 0, messages: [user('hi')] })).toEqual([user('hi')]);
  });

  it('prepends the remembered prefix to a delta', () => {
    const store = new ConversationStore();
    store.remember('k', [user('hi'), assistant('hello')]);
    const full = store.resolve({ key: 'k', from: 2, messages: [user('again')] });
    expect(full).toEqual([user('hi'), assistant('hello'), user('again')]);
  });

  it('fails non-retryably when the key is unknown or the prefix length differs', () => {
    const store = new ConversationStore();
    const unknown = cacheMiss(() => store.resolve({ key: 'nope', from: 2, messages: [user('x')] }));
    expect(unknown.type).toBe('ConversationCacheMiss');
    expect(unknown.nonRetryable).toBe(true);
    expect(unknown.message).toContain('nope');

    store.remember('k', [user('hi'), assistant('hello')]);
    const mismatch = cacheMiss(() => store.resolve({ key: 'k', from: 4, messages: [user('x')] }));
    expect(mismatch.type).toBe('ConversationCacheMiss');
    expect(mismatch.message).toMatch(/holds 2 messages.*first 4/);
  });

  it('evicts the least recently used conversation when over the count bound', () => {
    const store = new ConversationStore({ maxConversations: 2 });
    store.remember('a', [user('a')]);
    store.remember('b', [user('b')]);
    store.resolve({ key: 'a', from: 1, messages: [] }); // a is now the most recently used
    store.remember('c', [user('c')]);
    expect(store.size('a')).toBe(1);
    expect(store.size('b')).toBe(0);
    expect(store.size('c')).toBe(1);
  });

  it('evicts by total size but keeps the conversation just stored', () => {
    const store = new ConversationStore({ maxChars: 100 });
    store.remember('small', [user('x')]);
    store.remember('big', [user('y'.repeat(200))]);
    expect(store.size('small')).toBe(0);
    expect(store.size('big')).toBe(1);
  });
});
