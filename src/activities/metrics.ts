/**
 * Cohort's model-call metrics, recorded through the activity's metric meter so they reach the
 * same Prometheus endpoint as the Temporal runtime's worker metrics (when one is configured;
 * otherwise they are dropped at no cost). Labelled by model id.
 */
import { Context } from '@temporalio/activity';
import type { Usage } from '../shared/messages-api';
import { costOf } from '../shared/pricing';

function meter() {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined; // not inside an activity (unit tests calling helpers directly)
  }
}

export function recordModelCall(model: string, status: 'ok' | string, usage?: Usage): void {
  const m = meter();
  if (!m) return;
  m.createCounter('cohort_model_calls', 'calls', 'Model calls by model and outcome').add(1, { model, status });
  if (status === 'RateLimited') m.createCounter('cohort_model_rate_limited', 'calls', 'Model calls refused with 429').add(1, { model });
  if (usage) {
    m.createCounter('cohort_model_input_tokens', 'tokens', 'Input tokens billed').add(usage.input_tokens, { model });
    m.createCounter('cohort_model_output_tokens', 'tokens', 'Output tokens billed').add(usage.output_tokens, { model });
    // Counters take integers: cost is exported in micro-dollars.
    m.createCounter('cohort_model_cost_microusd', 'microusd', 'Estimated cost in millionths of a USD').add(Math.round(costOf(model, usage) * 1e6), { model });
  }
}
