import type { ChatMessage } from './messages-api';
import type { AgentSpec, TeamSpec } from './team';

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export const ZERO_USAGE: UsageTotals = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };

export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cost_usd: a.cost_usd + b.cost_usd,
  };
}

/**
 * Outcome of an instance's latest task: running → one of the end states; `queued` waits for a
 * max_parallel_agents slot.
 */
export type AgentStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'max_turns'
  | 'budget_exhausted'
  | 'failed'
  | 'cancelled'
  | 'timed_out';

/**
 * Lifecycle of a live instance (apart from its latest task's outcome): it sleeps between tasks,
 * waiting for `send_message` with trigger, until closed, idle-timed-out (done) or failed.
 */
export type InstanceState = 'queued' | 'running' | 'sleeping' | 'done' | 'failed' | 'closed';

export type SessionStatus = 'running' | 'idle' | 'completed' | 'max_turns' | 'budget_exhausted' | 'failed' | 'cancelled';

/** One subagent instance as the lead, the CLI and the UI see it. */
export interface AgentInfo {
  id: string;
  name: string;
  model: string;
  status: AgentStatus;
  task: string;
  turns: number;
  /** This instance and everything it delegated to. */
  usage: UsageTotals;
  /** The last thing the agent did, one line, for live views. */
  last?: string;
  error?: string;
  /** Lifecycle state; absent only in states saved before live instances existed. */
  state?: InstanceState;
  /** Tasks given so far (the first, then one per triggering send_message). */
  tasks?: number;
}

export interface SessionInput {
  team: TeamSpec;
  task: string;
  /** Task queue of callModel activities; defaults to `<workflow task queue>-llm`. */
  llmTaskQueue?: string;
  /** Keep the session open for follow-ups (`send` update) until `close` or the idle timeout. */
  interactive?: boolean;
  options?: SessionOptions;
  /** State carried over a continue-as-new; absent on a fresh start. */
  carry?: SessionCarry;
}

export interface SessionOptions {
  /** Interactive sessions end after this long without a follow-up (default 30 min). */
  idleTimeoutMs?: number;
  /** Sleeping subagent instances end after this long without a task (default 10 min). */
  instanceIdleTimeoutMs?: number;
  /** Continue-as-new once history passes this many events (default 10 000), or when Temporal suggests it. */
  continueAsNewAfterEvents?: number;
  /** The namespace has Cohort's search attributes: keep CohortStatus current, tag children with CohortAgent. */
  searchAttributes?: boolean;
}

/** One follow-up of an interactive session. */
export interface Exchange {
  question: string;
  answer?: string;
  status?: SessionStatus;
}

export interface Thought {
  agent: string;
  turn: number;
  thought: string;
}

/** A message waiting for the agent's next turn (a child's result, a note). */
export interface InboxItem {
  from: string;
  text: string;
}

/** What an agent loop needs to resume in a new run. */
export interface LoopSnapshot {
  messages: ChatMessage[];
  turns: number;
  taskTurns: number;
  usage: UsageTotals;
  last?: string;
  synced: number;
}

/** The delegation side of a session (or of a delegating subagent), JSON-safe. */
export interface DelegationSnapshot {
  instances: AgentInfo[];
  counters: Record<string, number>;
  definitions: Record<string, AgentSpec>;
  inbox: InboxItem[];
  thoughts: Thought[];
}

/** Saved state schema version: bump when the shape changes. */
export const CARRY_VERSION = 1;

export interface SessionCarry {
  version: typeof CARRY_VERSION;
  /** How many runs came before this one. */
  runs: number;
  lead: LoopSnapshot;
  delegation: DelegationSnapshot;
  exchanges: Exchange[];
  /** Where the lead was: in the middle of a task (resume its loop) or idle between follow-ups. */
  phase: 'turn' | 'idle';
  answer?: string;
}

export interface SessionState {
  sessionId: string;
  team: string;
  task: string;
  status: SessionStatus;
  lead: { model: string; turns: number; usage: UsageTotals; last?: string };
  agents: AgentInfo[];
  /** Whole session: lead plus every subagent. */
  usage: UsageTotals;
  answer?: string;
  error?: string;
  /** Agents created with create_subagent. */
  definitions?: Array<Pick<AgentSpec, 'name' | 'description' | 'tools' | 'model'>>;
  thoughts?: Thought[];
  /** Messages waiting for the lead's next turn. */
  inbox?: number;
  exchanges?: Exchange[];
  interactive?: boolean;
  /** Runs of this session so far (continue-as-new starts a new one). */
  runs?: number;
}

/** What `cohort result --json` and `cohort run --json` print. */
export interface SessionResult {
  workflowId: string;
  status: SessionStatus;
  answer: string;
  usage: UsageTotals;
  agents: Array<Pick<AgentInfo, 'id' | 'name' | 'status' | 'turns' | 'usage'>>;
  error?: string;
}

export interface SubagentInput {
  parentWorkflowId: string;
  agentId: string;
  spec: AgentSpec;
  task: string;
  context?: string;
  /** The parent's recent turns as a transcript (fork_history). */
  history?: string;
  maxTurns: number;
  depth: number;
  pricing: TeamSpec['pricing'];
  llmTaskQueue: string;
  /** The team, given only when this subagent may delegate (depth < max_depth). */
  team?: TeamSpec;
  /** The team's limits.max_depth, for the message to a subagent that may not delegate. */
  maxDepth?: number;
  /** Caps on what this instance (with its own children) may spend. */
  budgetUsd?: number;
  budgetTokens?: number;
  /** How long to sleep between tasks before ending (default 10 min). */
  idleTimeoutMs?: number;
}

/** What a subagent signals to its parent when a task ends. */
export interface ChildResult {
  agentId: string;
  /** Which task of the instance this answers (1 = the first). */
  task?: number;
  status: Exclude<AgentStatus, 'queued' | 'running'>;
  text: string;
  error?: { type: string; message: string };
  usage: UsageTotals;
  turns: number;
}

/** Signals from a child instance to its parent. */
export type ChildEvent =
  | ({ kind: 'result' } & ChildResult)
  | { kind: 'progress'; agentId: string; usage: UsageTotals; turns: number; last?: string }
  | { kind: 'ended'; agentId: string; state: 'done' | 'closed' | 'failed'; usage: UsageTotals; turns: number };

/** A message from the parent to a live instance; `trigger` starts a new task with its history kept. */
export interface AgentMessage {
  text: string;
  trigger: boolean;
  /** The task number a trigger starts. */
  task?: number;
}
