/**
 * A team after loading and validation (src/team/ produces it from YAML). Everything is resolved:
 * prompt files read, model aliases turned into ids, omitted tools inherited, defaults applied.
 * It is plain JSON because it travels in workflow inputs.
 */

export interface AgentSpec {
  name: string;
  description: string;
  prompt: string;
  /** Non-orchestration tools granted to this agent (built-in, server-side or MCP names). */
  tools: string[];
  /** Full model id (aliases resolved). */
  model: string;
  maxTurns: number;
  maxTokens: number;
  /** Wall-clock limit for one task of this agent, ms. */
  timeoutMs?: number;
  budgetUsd?: number;
  budgetTokens?: number;
}

export interface RetrySpec {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
}

export interface TeamLimits {
  maxParallelAgents: number;
  maxSubAgents: number;
  maxDepth: number;
  subagentTimeoutMs: number;
  budgetUsd?: number;
  budgetTokens?: number;
  modelRetry?: RetrySpec;
}

export interface Price {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

export interface McpServerSpec {
  command?: string;
  args?: string[];
  url?: string;
}

export interface TeamSpec {
  version: 1;
  name: string;
  /** alias → full model id, built-ins included. */
  models: Record<string, string>;
  lead: AgentSpec;
  agents: Record<string, AgentSpec>;
  limits: TeamLimits;
  /** model id → price overrides. */
  pricing: Record<string, Price>;
  mcpServers: Record<string, McpServerSpec>;
}

export const DEFAULTS = {
  maxParallelAgents: 3,
  maxSubAgents: 10,
  maxDepth: 1,
  subagentTimeoutMs: 60_000,
  maxTurns: 10,
  maxTokens: 4096,
  leadMaxTurns: 30,
  leadMaxTokens: 8192,
} as const;

/** Built-in model aliases (overridable in the team's `models:`). */
export const BUILTIN_MODELS: Record<string, string> = {
  sonnet: 'claude-sonnet-4-5',
  opus: 'claude-opus-4-1',
  haiku: 'claude-haiku-4-5',
};
