import type { Usage } from './messages-api';
import type { Price } from './team';

/** USD per million tokens, by model id prefix. Teams can override per model id (`pricing:`). */
export const DEFAULT_PRICES: Record<string, Price> = {
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-haiku-4': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
};

const FALLBACK: Price = { input: 3, output: 15 };

export function priceFor(model: string, overrides: Record<string, Price> = {}): Price {
  if (overrides[model]) return overrides[model];
  const prefix = Object.keys(DEFAULT_PRICES)
    .filter((p) => model.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? DEFAULT_PRICES[prefix] : FALLBACK;
}

/** Cost of one call. Cache writes bill at 1.25x input, cache reads at 0.1x. */
export function costOf(model: string, usage: Usage, overrides: Record<string, Price> = {}): number {
  const p = priceFor(model, overrides);
  const input =
    usage.input_tokens +
    1.25 * (usage.cache_creation_input_tokens ?? 0) +
    0.1 * (usage.cache_read_input_tokens ?? 0);
  return (input * p.input + usage.output_tokens * p.output) / 1_000_000;
}
