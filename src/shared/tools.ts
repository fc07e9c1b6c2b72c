import type { ToolDefinition } from './messages-api';

/** Tools the lead gets for orchestration (DESIGN.md §3). Subagents get them only when max_depth > 1. */
export const ORCHESTRATION_TOOLS = [
  'agent',
  'create_subagent',
  'list_agents',
  'send_message',
  'wait_agent',
  'close_agent',
  'get_available_models',
  'think',
] as const;
export type OrchestrationTool = (typeof ORCHESTRATION_TOOLS)[number];

export function isOrchestrationTool(name: string): name is OrchestrationTool {
  return (ORCHESTRATION_TOOLS as readonly string[]).includes(name);
}

/** Tools that a Cohort worker runs as activities. */
export const CLIENT_TOOLS: Record<string, ToolDefinition> = {
  web_fetch: {
    name: 'web_fetch',
    description:
      'Fetch a URL over HTTP(S) and return its text content (HTML is reduced to text). Use it to read a source.',
    input_schema: {
      type: 'object',
      properties: { url: { type: 'string', description: 'Absolute http(s) URL' } },
      required: ['url'],
    },
  },
  read_file: {
    name: 'read_file',
    description: "Read a UTF-8 text file from the worker's working directory.",
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the working directory' } },
      required: ['path'],
    },
  },
};

/** Tools that run at the model provider; Cohort only declares them. */
export const SERVER_TOOLS: Record<string, ToolDefinition> = {
  web_search: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
};

export function isKnownTool(name: string): boolean {
  return name in CLIENT_TOOLS || name in SERVER_TOOLS || isOrchestrationTool(name);
}

/** MCP tools are named mcp__<server>__<tool>. */
export function isMcpToolName(name: string): boolean {
  return /^mcp__[^_].*__.+$/.test(name);
}
