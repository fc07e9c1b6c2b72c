import type { UsageTotals } from '../shared/session-types';

/** A spending cap; either part may be absent. */
export interface BudgetCap {
  usd?: number;
  tokens?: number;
}

export function isSpent(usage: UsageTotals, cap: BudgetCap): boolean {
  if (cap.usd !== undefined && usage.cost_usd >= cap.usd) return true;
  if (cap.tokens !== undefined && usage.input_tokens + usage.output_tokens >= cap.tokens) return true;
  return false;
}

/** The tighter of two caps, field by field. */
export function tighter(a: BudgetCap, b: BudgetCap): BudgetCap {
  const min = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  return { usd: min(a.usd, b.usd), tokens: min(a.tokens, b.tokens) };
}

export function describeCap(cap: BudgetCap): string {
  const parts = [cap.usd !== undefined ? `$${cap.usd}` : '', cap.tokens !== undefined ? `${cap.tokens} tokens` : ''];
  return parts.filter(Boolean).join(' / ') || 'none';
}
