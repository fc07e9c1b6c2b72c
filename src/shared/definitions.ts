/**
 * Signals, updates and queries, defined once for workflows and clients. Child results are signals
 * (not child-workflow completion) so that a subagent can report a task and stay alive for follow-ups.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentInfo, AgentMessage, ChildEvent, SessionState } from './session-types';

/** Child → parent: progress, a task's result, the instance's end. */
export const childEventSignal = defineSignal<[ChildEvent]>('childEvent');
/** Parent → child: a message for a live instance (`trigger` starts a new task). */
export const agentMessageSignal = defineSignal<[AgentMessage]>('agentMessage');
export const sessionStateQuery = defineQuery<SessionState>('state');
export const agentStateQuery = defineQuery<AgentInfo>('agentState');

/**
 * A follow-up question for an interactive session. An update, not a signal: the caller learns at
 * once whether it was accepted (a validator rejects empty messages and closed sessions) and gets
 * the exchange number whose answer to wait for in the `state` query.
 */
export const sendUpdate = defineUpdate<{ exchange: number }, [string]>('send');
/** Ends an interactive session after the current turn (an update so the caller knows it was seen). */
export const closeUpdate = defineUpdate<{ closing: true }, []>('close');
/** The same as `closeUpdate`, for callers that cannot wait (the Temporal UI, scripts). */
export const closeSignal = defineSignal('close');

// Batches (src/workflows/batch.ts). Cancelling a batch is workflow cancellation, not a signal.
export const batchProgressQuery = defineQuery<import('./batch-types').BatchProgress, [import('./batch-types').ProgressQueryArgs?]>('progress');
