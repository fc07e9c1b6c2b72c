import { condition } from '@temporalio/workflow';
import type { AgentLoop, LoopOutcome } from './agent-loop';
import type { Delegator } from './delegation';

/**
 * Runs an agent until it has ended its turn with nothing left running under it. When it ends its
 * turn while async children still work, it sleeps on a condition (no polling, no model calls) and
 * is woken with whatever reached its inbox. A turn limit or a spent budget ends it at once.
 */
export async function runSettled(loop: AgentLoop, d: Delegator | undefined, first: () => Promise<LoopOutcome>): Promise<LoopOutcome> {
  let outcome = await first();
  while (d && outcome.status === 'completed') {
    await condition(() => d.inboxPending() || !d.hasRunning());
    if (!d.inboxPending()) break;
    outcome = await loop.resume();
  }
  return outcome;
}
