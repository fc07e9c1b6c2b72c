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

/** running → one of the end states; `queued` waits for a max_parallel_agents slot. */
export type AgentStatus = 'queued' | 'running' | 'completed' | 'max_turns' | 'failed' | 'cancelled' | 'timed_out';

export type SessionStatus = 'running' | 'completed' | 'max_turns' | 'failed' | 'cancelled';

/** One subagent instance as the lead, the CLI and the UI see it. */
export interface AgentInfo {
  id: string;
  name: string;
  model: string;
  status: AgentStatus;
  task: string;
  turns: number;
  usage: UsageTotals;
  /** The last thing the agent did, one line, for live views. */
  last?: string;
  error?: string;
}

export interface SessionInput {
  team: TeamSpec;
  task: string;
  /** Task queue of callModel activities; defaults to `<workflow task queue>-llm`. */
  llmTaskQueue?: string;
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
  maxTurns: number;
  depth: number;
  pricing: TeamSpec['pricing'];
  llmTaskQueue: string;
}

/** What a subagent signals to its parent when a task ends. */
export interface ChildResult {
  agentId: string;
  status: Exclude<AgentStatus, 'queued' | 'running'>;
  text: string;
  error?: { type: string; message: string };
  usage: UsageTotals;
  turns: number;
}
