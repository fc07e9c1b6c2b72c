import type { ToolDefinition } from './messages-api';
import type { AgentSpec } from './team';
import type { OrchestrationTool } from './tools';

/**
 * JSON schemas of the orchestration tools (DESIGN.md §3). The `agent` tool lists the subagents
 * with their descriptions: the model routes by them (and the simulated model reads them).
 */
export function agentToolDefinition(agents: Record<string, AgentSpec>): ToolDefinition {
  const names = Object.keys(agents);
  const roster = names.map((n) => `- ${n}: ${agents[n].description}`).join('\n');
  return {
    name: 'agent',
    description:
      'Delegate a self-contained sub-task to a specialist subagent. The subagent starts with a clean context: ' +
      'it sees only its own prompt, the task and the optional context you give it, so include everything it needs. ' +
      'Call this tool several times in one reply to run subagents in parallel. With mode "async" the call returns ' +
      'an agent_id at once and the result arrives later as a message (or through wait_agent). Available subagents:\n' +
      roster,
    input_schema: {
      type: 'object',
      properties: {
        subagent: { type: 'string', ...(names.length ? { enum: names } : {}), description: 'Which subagent to call, chosen by its description.' },
        task: { type: 'string', description: 'The task for the subagent, self-contained.' },
        context: { type: 'string', description: 'Optional context from you (trimmed to 20 000 characters).' },
        max_turns: { type: 'integer', minimum: 1, description: "Max model turns for this call (default: the subagent's)." },
        model: { type: 'string', description: 'Optional model alias or id overriding the subagent default.' },
        mode: { type: 'string', enum: ['sync', 'async'], description: 'sync (default) waits for the result; async returns an agent_id now.' },
        fork_history: {
          description: 'Give the subagent your recent conversation: "none" (default), "all", or the last N turns.',
          anyOf: [{ type: 'string', enum: ['none', 'all'] }, { type: 'integer', minimum: 1 }],
        },
        budget_usd: { type: 'number', exclusiveMinimum: 0, description: 'Most this call may spend, USD.' },
        budget_tokens: { type: 'integer', minimum: 1, description: 'Most tokens this call may use.' },
        timeout_s: { type: 'number', exclusiveMinimum: 0, description: 'Wall-clock limit for this task, seconds.' },
      },
      required: ['subagent', 'task'],
    },
  };
}

const SCHEMAS: Record<Exclude<OrchestrationTool, 'agent'>, ToolDefinition> = {
  create_subagent: {
    name: 'create_subagent',
    description:
      'Define a new subagent for this session. It can then be called with the agent tool. Its tools default to ' +
      'your own (non-orchestration) tools and can only narrow them.',
    input_schema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Lowercase name, letters, digits, - and _.' },
        description: { type: 'string', description: 'What it is for (you route by it).' },
        prompt: { type: 'string', description: 'Its system prompt.' },
        tools: { type: 'array', items: { type: 'string' }, description: 'Subset of your tools (default: all of them).' },
        model: { type: 'string', description: 'Model alias or id (default: your model).' },
      },
      required: ['name', 'description', 'prompt'],
    },
  },
  list_agents: {
    name: 'list_agents',
    description: 'List the subagent definitions and live instances (state, turns, tokens).',
    input_schema: { type: 'object', properties: {} },
  },
  send_message: {
    name: 'send_message',
    description:
      'Send a message to a live subagent instance. With trigger: true it starts a new task on the instance, which ' +
      'keeps its history; the result arrives like an async agent result.',
    input_schema: {
      type: 'object',
      properties: {
        agent_id: { type: 'string' },
        message: { type: 'string' },
        trigger: { type: 'boolean', description: 'Start a new task with this message (default false: queued as context).' },
      },
      required: ['agent_id', 'message'],
    },
  },
  wait_agent: {
    name: 'wait_agent',
    description: 'Wait until the given instances (default: every running one) report, or timeout_s passes; returns their results.',
    input_schema: {
      type: 'object',
      properties: {
        agent_ids: { type: 'array', items: { type: 'string' } },
        timeout_s: { type: 'number', exclusiveMinimum: 0, description: 'Default 300.' },
      },
    },
  },
  close_agent: {
    name: 'close_agent',
    description: 'Close a subagent instance, running or sleeping; a running task is cancelled.',
    input_schema: { type: 'object', properties: { agent_id: { type: 'string' } }, required: ['agent_id'] },
  },
  get_available_models: {
    name: 'get_available_models',
    description: 'List the model aliases and ids usable as `model`.',
    input_schema: { type: 'object', properties: {} },
  },
  think: {
    name: 'think',
    description: 'Write down a thought (a plan, a check). It is recorded for the user; nothing else happens.',
    input_schema: { type: 'object', properties: { thought: { type: 'string' } }, required: ['thought'] },
  },
};

/** The orchestration tools' definitions, in DESIGN.md order. */
export function orchestrationToolDefinitions(agents: Record<string, AgentSpec>): ToolDefinition[] {
  return [agentToolDefinition(agents), ...Object.values(SCHEMAS)];
}
