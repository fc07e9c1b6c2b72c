import { formatUsage } from '../shared/render';
import type { SessionResult } from '../shared/session-types';

export function printResult(result: SessionResult, json: boolean, out = process.stdout, err = process.stderr): void {
  if (json) {
    out.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (result.answer) out.write(`${result.answer}\n`);
  const agents = result.agents.length ? ` · ${result.agents.length} subagent${result.agents.length === 1 ? '' : 's'}` : '';
  err.write(`\n${result.status} · ${formatUsage(result.usage)}${agents} · ${result.workflowId}\n`);
  if (result.error) err.write(`error: ${result.error}\n`);
}

/** 0 for a session that produced its answer (also when a limit made the lead conclude early), 1 otherwise. */
export function exitCodeFor(result: SessionResult): number {
  return ['completed', 'max_turns', 'budget_exhausted'].includes(result.status) ? 0 : 1;
}
