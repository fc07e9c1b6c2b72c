import type { ToolDefinition } from './messages-api';
import type { AgentSpec } from './team';

/**
 * JSON schemas of the orchestration tools the lead sees. The `agent` tool lists the subagents
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
      'Call this tool several times in one reply to run subagents in parallel. Available subagents:\n' +
      roster,
    input_schema: {
      type: 'object',
      properties: {
        subagent: { type: 'string', enum: names, description: 'Which subagent to call, chosen by its description.' },
        task: { type: 'string', description: 'The task for the subagent, self-contained.' },
        context: { type: 'string', description: 'Optional context from you (trimmed to fit).' },
        max_turns: { type: 'integer', minimum: 1, description: "Max model turns for this call (default: the subagent's)." },
        model: { type: 'string', description: 'Optional model alias or id overriding the subagent default.' },
      },
      required: ['subagent', 'task'],
    },
  };
}
