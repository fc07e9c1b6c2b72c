import type { ToolDefinition, ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import { CLIENT_TOOLS, SERVER_TOOLS, isOrchestrationTool } from '../shared/tools';
import type { ToolActivities } from './activities';
import { errorResult, okResult } from './tool-results';
import { describeFailure } from './failures';

export type OrchestrationHandler = (block: ToolUseBlock) => Promise<ToolResultBlock>;

export interface ToolExecutorOptions {
  agentLabel: string;
  /** Non-orchestration tools granted to the agent. */
  granted: string[];
  /** Orchestration tools this agent may use, by name. */
  orchestration: Record<string, OrchestrationHandler>;
  /** Why this agent has no orchestration tools (shown to a model that asks for one anyway). */
  noDelegationReason: string;
  tools: ToolActivities;
  maxResultChars: number;
}

/** Tool definitions sent to the model for granted non-orchestration tools a worker can run. */
export function toolDefinitions(granted: string[]): ToolDefinition[] {
  return granted.flatMap((name) => {
    const def = CLIENT_TOOLS[name] ?? SERVER_TOOLS[name];
    return def ? [def] : [];
  });
}

/**
 * Runs one tool_use of an agent. A tool the agent was not granted is refused as an error result,
 * never executed; so is an orchestration tool asked for past max_depth.
 */
export function makeToolExecutor(opts: ToolExecutorOptions): (block: ToolUseBlock) => Promise<ToolResultBlock> {
  return async (block) => {
    if (isOrchestrationTool(block.name)) {
      const handler = opts.orchestration[block.name];
      if (handler) return handler(block);
      return errorResult(block, 'tool_not_allowed', `${opts.agentLabel} cannot use "${block.name}": ${opts.noDelegationReason}`);
    }
    if (!opts.granted.includes(block.name)) {
      const list = opts.granted.length ? opts.granted.join(', ') : 'none';
      return errorResult(block, 'tool_not_allowed', `tool "${block.name}" is not granted to ${opts.agentLabel} (granted: ${list})`);
    }
    if (!CLIENT_TOOLS[block.name]) {
      return errorResult(block, 'tool_unavailable', `no Cohort worker provides the tool "${block.name}"`);
    }
    try {
      const out = await opts.tools.runTool({
        agentId: opts.agentLabel,
        name: block.name,
        input: block.input,
        maxResultChars: opts.maxResultChars,
      });
      return out.isError ? { ...okResult(block, out.content), is_error: true } : okResult(block, out.content);
    } catch (err) {
      return errorResult(block, 'tool_failed', `${block.name} failed: ${describeFailure(err)}`);
    }
  };
}
