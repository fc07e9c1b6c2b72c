/**
 * Signals and queries, defined once for workflows and clients. Child results are signals (not
 * child-workflow completion) so that a subagent can report a task and stay alive for follow-ups.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ChildResult, SessionState, AgentInfo } from './session-types';

export const childResultSignal = defineSignal<[ChildResult]>('childResult');
export const sessionStateQuery = defineQuery<SessionState>('state');
export const agentStateQuery = defineQuery<AgentInfo>('agentState');
