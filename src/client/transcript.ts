/**
 * A session's conversations, rebuilt from workflow history (no worker needed, works on sessions
 * that ended long ago). Each `callModel` ActivityTaskScheduled event carries the messages the
 * worker had not seen (`conversation: {key, from, messages}`; `from` = 0 resends everything after
 * a cache miss), and each ActivityTaskCompleted carries the reply: together, every message of
 * every model turn, in order.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type PayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { CallModelInput, CallModelOutput } from '../shared/activity-types';
import { MODEL_ERROR_TYPES } from '../shared/activity-types';
import type { ChatMessage, ModelReply } from '../shared/messages-api';
import { costOf } from '../shared/pricing';
import type { Price } from '../shared/team';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface TranscriptTurn {
  /** 1-based, across the whole conversation (continue-as-new included). */
  turn: number;
  model: string;
  system: string;
  tools: string[];
  toolChoice?: 'auto' | 'none';
  /** Messages sent for the first time with this turn (the task, tool results, inbox messages). */
  input: ChatMessage[];
  reply?: ModelReply;
  cost_usd?: number;
  /** Set when the call failed for good (after Temporal's retries). */
  error?: string;
  at?: string;
}

export interface Transcript {
  workflowId: string;
  /** `lead`, or the subagent instance id. */
  agent: string;
  /** Workflow runs read (more than one after continue-as-new). */
  runs: number;
  turns: TranscriptTurn[];
  /** Subagent instances the workflow started (workflow ids), for `--agent`. */
  children: string[];
  totals: { input_tokens: number; output_tokens: number; cost_usd: number };
}

export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const ET = {
  started: 1, // WORKFLOW_EXECUTION_STARTED
  activityScheduled: 10,
  activityCompleted: 12,
  activityFailed: 13,
  activityTimedOut: 14,
  activityCanceled: 16,
  childInitiated: 29,
} as const;

/** Every run's events, oldest run first, following `continuedExecutionRunId` back from the latest. */
export async function fetchAllRuns(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift(events);
    const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runs;
    runId = previous;
  }
}

/** Rebuilds the model turns of one workflow's agent from its runs' events. */
export function buildTranscript(
  workflowId: string,
  agent: string,
  runs: HistoryEvent[][],
  converter: PayloadConverter = defaultPayloadConverter,
): Transcript {
  const decode = <T>(p: temporal.api.common.v1.IPayloads | null | undefined): T | undefined =>
    p?.payloads?.[0] ? (converter.fromPayload(p.payloads[0]) as T) : undefined;
  const started = decode<{ team?: { pricing?: Record<string, Price> }; pricing?: Record<string, Price> }>(
    runs[0]?.[0]?.workflowExecutionStartedEventAttributes?.input,
  );
  const pricing = started?.team?.pricing ?? started?.pricing ?? {};

  const conversations = new Map<string, ChatMessage[]>();
  const turns: TranscriptTurn[] = [];
  const children: string[] = [];
  for (const events of runs) {
    const pending = new Map<string, { turn: TranscriptTurn; key: string; before: number }>();
    for (const e of events) {
      const type = Number(e.eventType);
      if (type === ET.childInitiated) {
        const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        if (id && !children.includes(id)) children.push(id);
      } else if (type === ET.activityScheduled) {
        const a = e.activityTaskScheduledEventAttributes;
        if (a?.activityType?.name !== 'callModel') continue;
        const call = decode<CallModelInput>(a.input);
        if (!call?.conversation) continue;
        const { key, from, messages } = call.conversation;
        const known = conversations.get(key) ?? [];
        // A resend after a cache miss repeats messages already shown: keep only the new ones.
        const fresh = messages.filter((_, i) => from + i >= known.length);
        const whole = [...known.slice(0, from), ...messages];
        conversations.set(key, whole.length >= known.length ? whole : known);
        const turn: TranscriptTurn = {
          turn: 0,
          model: call.model,
          system: call.system,
          tools: call.tools.map((t) => t.name),
          ...(call.toolChoice ? { toolChoice: call.toolChoice } : {}),
          input: fresh,
          ...(e.eventTime ? { at: timeOf(e.eventTime) } : {}),
        };
        pending.set(String(e.eventId), { turn, key, before: known.length });
      } else if (type === ET.activityCompleted) {
        const a = e.activityTaskCompletedEventAttributes;
        const p = take(pending, a?.scheduledEventId);
        if (!p) continue;
        const out = decode<CallModelOutput>(a?.result);
        if (out?.reply) {
          p.turn.reply = out.reply;
          p.turn.cost_usd = costOf(p.turn.model, out.reply.usage, pricing);
          conversations.get(p.key)?.push({ role: 'assistant', content: out.reply.content });
        }
        turns.push(p.turn);
      } else if (type === ET.activityFailed || type === ET.activityTimedOut || type === ET.activityCanceled) {
        const a = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
        const p = take(pending, a?.scheduledEventId);
        if (!p) continue;
        const failure = (a as { failure?: temporal.api.failure.v1.IFailure }).failure;
        // A cache miss is plumbing: the same turn is resent whole and appears once, from that call.
        if (failure?.applicationFailureInfo?.type === MODEL_ERROR_TYPES.cacheMiss) {
          conversations.set(p.key, (conversations.get(p.key) ?? []).slice(0, p.before));
          continue;
        }
        p.turn.error = type === ET.activityCanceled ? 'cancelled' : describeFailure(failure) || 'timed out';
        turns.push(p.turn);
      }
    }
    // Scheduled and not ended: the session is still waiting for this reply.
    for (const p of pending.values()) turns.push({ ...p.turn, error: 'no reply yet (the call is in progress)' });
  }
  turns.forEach((t, i) => (t.turn = i + 1));
  const totals = turns.reduce(
    (s, t) => ({
      input_tokens: s.input_tokens + (t.reply?.usage.input_tokens ?? 0),
      output_tokens: s.output_tokens + (t.reply?.usage.output_tokens ?? 0),
      cost_usd: s.cost_usd + (t.cost_usd ?? 0),
    }),
    { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
  );
  return { workflowId, agent, runs: runs.length, turns, children, totals };
}

function take<T>(pending: Map<string, T>, id: unknown): T | undefined {
  const key = String(id);
  const p = pending.get(key);
  pending.delete(key);
  return p;
}

function describeFailure(f: temporal.api.failure.v1.IFailure | null | undefined): string {
  if (!f) return '';
  const type = f.applicationFailureInfo?.type;
  const own = `${type ? `${type}: ` : ''}${f.message ?? ''}`;
  const cause = describeFailure(f.cause);
  return cause && !own.includes(cause) ? `${own} (${cause})` : own;
}

function timeOf(t: { seconds?: unknown; nanos?: number | null }): string {
  return new Date(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString();
}

/**
 * Which workflow holds the agent's conversation: the session itself for `lead` (default), a
 * subagent instance by id (`<session>/researcher-1` or `researcher-1`), or by name (its first
 * instance).
 */
export function resolveAgent(sessionId: string, children: string[], agent?: string): string {
  if (!agent || agent === 'lead') return sessionId;
  const candidates = [agent, `${sessionId}/${agent}`];
  const exact = children.find((c) => candidates.includes(c));
  if (exact) return exact;
  const byName = children.find((c) => c.startsWith(`${sessionId}/`) && new RegExp(`^${escape(agent)}-\\d+$`).test(c.slice(sessionId.length + 1)));
  if (byName) return byName;
  const known = children.map((c) => c.slice(sessionId.length + 1));
  throw new TranscriptError(
    `session ${sessionId} has no agent "${agent}" (agents: lead${known.length ? `, ${known.join(', ')}` : ''})`,
  );
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Reads the transcript of the lead or of one subagent of session `sessionId`. */
export async function readTranscript(client: Client, sessionId: string, agent?: string): Promise<Transcript> {
  const converter = client.options.loadedDataConverter.payloadConverter;
  const sessionRuns = await fetchAllRuns(client, sessionId);
  const session = buildTranscript(sessionId, 'lead', sessionRuns, converter);
  const target = resolveAgent(sessionId, session.children, agent);
  if (target === sessionId) return session;
  const agentId = target.startsWith(`${sessionId}/`) ? target.slice(sessionId.length + 1) : target;
  return buildTranscript(target, agentId, await fetchAllRuns(client, target), converter);
}
