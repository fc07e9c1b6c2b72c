/**
 * OpenTelemetry tracing through Temporal's interceptors: one trace from the client's start of a
 * session through its workflow, its subagent child workflows and their model-call activities.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setupTracing, tracingEnabled } from '../src/tracing';
import { startHarness, teamFromYaml, type Harness } from './helpers/session';
import { waitFor } from './helpers/wait';

const exporter = new InMemorySpanExporter();
setupTracing({}, new SimpleSpanProcessor(exporter));

let h: Harness;
afterAll(async () => {
  await h?.stop();
});

test('the usual OTEL variables switch tracing on', () => {
  expect(tracingEnabled({})).toBe(false);
  expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
  expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
  expect(tracingEnabled({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'true' })).toBe(false);
});

test('a session is one trace: client start, session workflow, subagent workflow, model calls', async () => {
  h = await startHarness();
  const team = teamFromYaml(`
version: 1
name: traced
lead:
  model: sonnet
  prompt: "You lead the traced team."
agents:
  researcher: { description: Finds sources on one sub-question, prompt: "You are the researcher." }
`);
  const { result } = await h.run(team, 'Trace me');
  expect(result.status).toBe('completed');
  const spans = await waitFor('workflow spans exported', () => {
    const all = exporter.getFinishedSpans();
    return all.some((s) => s.name === 'RunWorkflow:subagentWorkflow') && all.some((s) => s.name === 'RunWorkflow:sessionWorkflow') ? all : undefined;
  });
  const names = new Set(spans.map((s) => s.name));
  for (const name of ['StartWorkflow:sessionWorkflow', 'RunWorkflow:sessionWorkflow', 'StartChildWorkflow:subagentWorkflow', 'RunWorkflow:subagentWorkflow', 'RunActivity:callModel']) {
    expect(names).toContain(name);
  }
  const start = spans.find((s) => s.name === 'StartWorkflow:sessionWorkflow')!;
  const traceId = start.spanContext().traceId;
  const modelCalls = spans.filter((s) => s.name === 'RunActivity:callModel');
  expect(modelCalls).toHaveLength(3); // lead ×2, researcher ×1
  // Client start, workflows, child, signals, activities and the SDK's HTTP call: one trace.
  expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
});
