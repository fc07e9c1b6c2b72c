/** Small builders for scripted sim rules in workflow tests. */
import type { SimMatch, SimReplyBlock, SimRule } from '../../src/sim';

/** A rule answering the agent whose system prompt matches `system` at model turn `turn`. */
export function turnRule(system: string, turn: number, content: string | SimReplyBlock[], extra: SimMatch = {}): SimRule {
  return { match: { system, turn, ...extra }, reply: { content } };
}

export function toolUse(name: string, input: Record<string, unknown>): SimReplyBlock {
  return { type: 'tool_use', name, input };
}

/** An `agent` tool call. */
export function agentCall(input: Record<string, unknown>): SimReplyBlock {
  return toolUse('agent', input);
}
