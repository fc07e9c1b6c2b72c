import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ConversationStore } from '../../src/activities/conversation-store';
import { createModelActivities } from '../../src/activities/model';
import type { CallModelInput, CallModelOutput } from '../../src/shared/activity-types';
import type { ChatMessage } from '../../src/shared/messages-api';
import { CLIENT_TOOLS } from '../../src/shared/tools';
import { startSim, type SimServer } from '../../src/sim';

let sim: SimServer;

beforeAll(async () => {
  sim = await startSim({ apiKey: 'test-key' });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.reset();
  sim.setScript(undefined);
});

function input(conversation: CallModelInput['conversation'], overrides: Partial<CallModelInput> = {}): CallModelInput {
  return {
    agentId: 'researcher-1',
    model: 'claude-haiku-4-5',
    system: 'You are a researcher.',
    tools: [CLIENT_TOOLS.web_fetch],
    maxTokens: 1024,
    conversation,
    ...overrides,
  };
}

function activities(store = new ConversationStore()) {
  return createModelActivities({ apiKey: 'test-key', baseURL: sim.url }, store);
}

/** Expected failures are the point of several tests: keep the worker's WARN logs out of the output. */
function mockEnv(): MockActivityEnvironment {
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs callModel in a mock activity context (the generic `run` cannot infer the result type). */
function runCall(
  env: MockActivityEnvironment,
  callModel: (i: CallModelInput) => Promise<CallModelOutput>,
  i: CallModelInput,
): Promise<CallModelOutput> {
  return env.run(callModel, i);
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof ApplicationFailure) return err;
  throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
}

const ask: ChatMessage = { role: 'user', content: 'Read https://example.com/tides and summarise it.' };

describe('callModel', () => {
  it('returns a ModelReply with tool_use blocks and usage', async () => {
    sim.setScript({
      rules: [
        {
          match: { last_user: 'tides' },
          reply: {
            content: [
              { type: 'text', text: 'Fetching the page.' },
              { type: 'tool_use', id: 'toolu_1', name: 'web_fetch', input: { url: 'https://example.com/tides' } },
            ],
            usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100 },
          },
        },
      ],
    });
    const { callModel } = activities();
    const env = mockEnv();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const out = await runCall(env, callModel, input({ key: 'wf#r1', from: 0, messages: [ask] }));

    expect(out.cached).toBe(2);
    expect(out.reply.model).toBe('claude-haiku-4-5');
    expect(out.reply.stop_reason).toBe('tool_use');
    expect(out.reply.content).toEqual([
      { type: 'text', text: 'Fetching the page.' },
      { type: 'tool_use', id: 'toolu_1', name: 'web_fetch', input: { url: 'https://example.com/tides' } },
    ]);
    expect(out.reply.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100 });
    expect(heartbeats).toBeGreaterThan(1); // one at the start, then on stream events

    const [entry] = sim.stats().log;
    expect(entry).toMatchObject({ status: 200, stream: true, system: 'You are a researcher.', tools: ['web_fetch'] });
  });

  it('rebuilds the whole conversation from the cache for a delta call', async () => {
    sim.setScript({
      rules: [
        {
          match: { turn: 1 },
          reply: {
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'web_fetch', input: { url: 'https://x.test' } }],
          },
        },
        { match: { turn: 2, last_user: 'High tide at noon' }, reply: { content: 'Tides peak at noon.' } },
      ],
      fallback: 'error',
    });
    const { callModel } = activities();
    const first = await runCall(mockEnv(), callModel, input({ key: 'wf#r1', from: 0, messages: [ask] }));
    const toolResult: ChatMessage = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'High tide at noon.' }],
    };
    const second = await runCall(
      mockEnv(),
      callModel,
      input({ key: 'wf#r1', from: first.cached, messages: [toolResult] }),
    );

    expect(second.reply.content).toEqual([{ type: 'text', text: 'Tides peak at noon.' }]);
    expect(second.cached).toBe(4);
    // turn 2 = the request carried the first reply, i.e. the cached prefix, not just the delta.
    expect(sim.stats().log.map((e) => [e.turn, e.status])).toEqual([
      [1, 200],
      [2, 200],
    ]);
  });

  it('fails with ConversationCacheMiss for a delta whose prefix this worker does not hold', async () => {
    const { callModel } = activities();
    const failure = await failureOf(
      mockEnv().run(callModel, input({ key: 'other-worker#r1', from: 2, messages: [ask] })),
    );
    expect(failure.type).toBe('ConversationCacheMiss');
    expect(failure.nonRetryable).toBe(true);
    expect(sim.stats().requests).toBe(0);
  });

  it('turns a 429 with retry-after into a retryable RateLimited failure with nextRetryDelay', async () => {
    sim.setScript({ rules: [{ error: { status: 429, headers: { 'retry-after': '7' } } }] });
    const { callModel } = activities();
    const failure = await failureOf(
      mockEnv().run(callModel, input({ key: 'k', from: 0, messages: [ask] })),
    );
    expect(failure.type).toBe('RateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(7000);
    expect(failure.message).toContain('429');
    // maxRetries: 0 — the SDK made exactly one attempt; Temporal owns the retries.
    expect(sim.stats().requests).toBe(1);
  });

  it('turns a 400 into a non-retryable InvalidRequest and does not cache the conversation', async () => {
    sim.setScript({
      rules: [
        {
          error: {
            status: 400,
            body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens is too large' } },
          },
        },
      ],
    });
    const store = new ConversationStore();
    const { callModel } = activities(store);
    const failure = await failureOf(
      mockEnv().run(callModel, input({ key: 'k', from: 0, messages: [ask] })),
    );
    expect(failure.type).toBe('InvalidRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('max_tokens is too large');
    expect(store.size('k')).toBe(0);
  });

  it('aborts the HTTP request when the activity is cancelled', async () => {
    sim.setScript({ rules: [{ reply: { content: 'too late' }, delay_ms: 5000 }] });
    const { callModel } = activities();
    const env = mockEnv();
    const started = Date.now();
    const call = env.run(callModel, input({ key: 'k', from: 0, messages: [ask] }));
    const outcome = call.then(
      () => 'completed',
      (err: unknown) => err,
    );
    await waitFor(() => sim.stats().max_concurrent === 1, 'the request to reach the sim');
    env.cancel();
    const err = await outcome;
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('fails non-retryably when the worker has no API key', async () => {
    const { callModel } = createModelActivities({ baseURL: sim.url });
    const failure = await failureOf(
      mockEnv().run(callModel, input({ key: 'k', from: 0, messages: [ask] })),
    );
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('ANTHROPIC_API_KEY is not set on the worker');
    expect(sim.stats().requests).toBe(0);
  });

  it('reports a refused connection as a retryable ConnectionError', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { callModel } = createModelActivities({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}` });
    const failure = await failureOf(
      mockEnv().run(callModel, input({ key: 'k', from: 0, messages: [ask] })),
    );
    expect(failure.type).toBe('ConnectionError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('ECONNREFUSED');
  });
});
