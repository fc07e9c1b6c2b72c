/** Rebuilding a conversation from history events: deltas, a cache-miss resend, continue-as-new, failures. */
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { buildTranscript, resolveAgent } from '../src/client/transcript';
import { transcriptMarkdown } from '../src/cli/transcript';
import type { CallModelInput, CallModelOutput } from '../src/shared/activity-types';
import type { ChatMessage, ModelReply } from '../src/shared/messages-api';

type Event = temporal.api.history.v1.IHistoryEvent;
const payloads = (v: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(v)] });

let nextId = 1;
function scheduled(from: number, messages: ChatMessage[], system = 'You lead.'): Event {
  const input: CallModelInput = {
    agentId: 'lead',
    model: 'claude-sonnet-4-5',
    system,
    tools: [{ name: 'agent', description: 'delegate', input_schema: {} }],
    maxTokens: 100,
    conversation: { key: 's#lead', from, messages },
  };
  return { eventId: nextId++, eventType: 10, activityTaskScheduledEventAttributes: { activityType: { name: 'callModel' }, input: payloads(input) } } as unknown as Event;
}
function completed(scheduledEventId: number, content: ModelReply['content'], cached: number): Event {
  const out: CallModelOutput = {
    reply: { id: 'm', model: 'claude-sonnet-4-5', content, stop_reason: 'end_turn', usage: { input_tokens: 1000, output_tokens: 100 } },
    cached,
  };
  return { eventId: nextId++, eventType: 12, activityTaskCompletedEventAttributes: { scheduledEventId, result: payloads(out) } } as unknown as Event;
}
function failed(scheduledEventId: number, type: string, message: string): Event {
  return { eventId: nextId++, eventType: 13, activityTaskFailedEventAttributes: { scheduledEventId, failure: { message, applicationFailureInfo: { type } } } } as unknown as Event;
}
const idOf = (e: Event) => Number(e.eventId);

test('deltas become one turn each; a resend after a cache miss shows no message twice; runs join up', () => {
  nextId = 1;
  const task: ChatMessage = { role: 'user', content: 'Compare heat pumps' };
  const s1 = scheduled(0, [task]);
  const use = { type: 'tool_use', id: 'toolu_1', name: 'agent', input: { subagent: 'researcher', task: 'find' } };
  const c1 = completed(idOf(s1), [use], 2);
  const result: ChatMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'R-42' }] };
  const s2 = scheduled(2, [result]);
  const miss = failed(idOf(s2), 'ConversationCacheMiss', 'no cache');
  const s3 = scheduled(0, [task, { role: 'assistant', content: [use] }, result]);
  const c3 = completed(idOf(s3), [{ type: 'text', text: 'Heat pumps win (R-42).' }], 4);
  // After continue-as-new the next run resends everything, then adds a follow-up that fails.
  const follow: ChatMessage = { role: 'user', content: 'And in Norway?' };
  const s4 = scheduled(0, [task, { role: 'assistant', content: [use] }, result, { role: 'assistant', content: 'Heat pumps win (R-42).' }, follow], 'You lead. Conclude now.');
  const f4 = failed(idOf(s4), 'InvalidRequest', 'prompt is too long');

  const t = buildTranscript('s', 'lead', [[s1, c1, s2, miss, s3, c3], [s4, f4]]);
  expect(t.runs).toBe(2);
  expect(t.turns.map((x) => [x.turn, x.input.length, Boolean(x.reply), x.error])).toEqual([
    [1, 1, true, undefined],
    [2, 1, true, undefined],
    [3, 1, false, 'InvalidRequest: prompt is too long'],
  ]);
  expect(t.turns[1].input).toEqual([result]);
  expect(t.turns[2].input).toEqual([follow]);
  expect(t.totals).toEqual({ input_tokens: 2000, output_tokens: 200, cost_usd: 2 * ((1000 * 3 + 100 * 15) / 1e6) });

  const md = transcriptMarkdown(t);
  expect(md.match(/Compare heat pumps/g)).toHaveLength(1);
  expect(md).toContain('**Tool result** of `agent` (toolu_1)\n\n> R-42');
  expect(md).toContain('## System prompt (changed at turn 3)');
  expect(md).toContain('**Model call failed:** InvalidRequest: prompt is too long');
});

test('--agent takes lead, a name (first instance), an instance id or a full workflow id', () => {
  const children = ['s/researcher-1', 's/writer-1', 's/researcher-2'];
  expect(resolveAgent('s', children)).toBe('s');
  expect(resolveAgent('s', children, 'researcher')).toBe('s/researcher-1');
  expect(resolveAgent('s', children, 'researcher-2')).toBe('s/researcher-2');
  expect(resolveAgent('s', children, 's/writer-1')).toBe('s/writer-1');
  expect(() => resolveAgent('s', children, 'res')).toThrow('session s has no agent "res" (agents: lead, researcher-1, writer-1, researcher-2)');
});
