import { CLIENT_TOOLS, SERVER_TOOLS, isOrchestrationTool } from '../shared/tools';
import type { Path, Report } from './report';

export interface ToolContext {
  /** Servers declared under `mcp_servers`. */
  mcpServers: ReadonlySet<string>;
  maxDepth: number;
}

const BUILT_IN = [...Object.keys(CLIENT_TOOLS), ...Object.keys(SERVER_TOOLS)];

/**
 * Checks one agent's `tools:` list and returns the tools to grant (orchestration tools excluded:
 * the workflow adds those itself). `who` decides how an orchestration tool is treated: the lead
 * gets them anyway, so listing one is only redundant (warning); a subagent listing one is an
 * error because it would not get it, and silently dropping a tool hides a design mistake.
 */
export function checkTools(tools: string[], path: Path, who: 'lead' | 'agent', ctx: ToolContext, report: Report): string[] {
  const granted: string[] = [];
  tools.forEach((name, i) => {
    const at = [...path, i];
    if (tools.indexOf(name) < i) {
      report.warn(at, `"${name}" is listed twice`);
      return;
    }
    if (isOrchestrationTool(name)) {
      if (who === 'lead') {
        report.warn(at, `"${name}" is an orchestration tool; the lead gets those automatically, so remove it from tools`);
      } else {
        report.error(
          at,
          `"${name}" is an orchestration tool; subagents cannot list it, they get orchestration tools only through ` +
            `limits.max_depth > 1 (currently ${ctx.maxDepth})`,
        );
      }
      return;
    }
    if (name.startsWith('mcp__')) {
      const server = /^mcp__([^_]+(?:_[^_]+)*)__.+$/.exec(name)?.[1];
      if (server === undefined) {
        report.error(at, `"${name}" is not a valid MCP tool name; use mcp__<server>__<tool>`);
        return;
      }
      if (!ctx.mcpServers.has(server)) {
        const declared = ctx.mcpServers.size ? [...ctx.mcpServers].join(', ') : 'none';
        report.error(at, `MCP server "${server}" (from "${name}") is not declared in mcp_servers (declared: ${declared})`);
        return;
      }
    } else if (!BUILT_IN.includes(name)) {
      report.warn(
        at,
        `unknown tool "${name}": it may be a server-side or MCP tool no worker provides ` +
          `(built-in: ${BUILT_IN.join(', ')}; MCP tools are named mcp__<server>__<tool>)`,
      );
    }
    granted.push(name);
  });
  return granted;
}
