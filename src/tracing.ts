/**
 * Optional OpenTelemetry tracing through Temporal's interceptors, switched on by the usual OTEL
 * environment variables: OTEL_TRACES_EXPORTER (`otlp` or `console`) or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SERVICE_NAME names the
 * service; OTEL_SDK_DISABLED=true turns it off. Spans cover client starts, workflows (exported
 * from the sandbox through a sink), child workflows and activities (model calls, tools).
 */
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';

export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Flushes and stops the exporter (call before the process exits). */
  shutdown(): Promise<void>;
}

/** The workflow-side interceptors module that must be bundled when tracing is on. */
export const WORKFLOW_TRACING_MODULE = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

let current: Tracing | undefined;

/** Sets up the process-wide tracer provider once; undefined when tracing is off. */
export function setupTracing(env: NodeJS.ProcessEnv = process.env, spanProcessor?: SpanProcessor): Tracing | undefined {
  if (current) return current;
  if (!spanProcessor && !tracingEnabled(env)) return undefined;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME ?? 'cohort' });
  const processor =
    spanProcessor ??
    (env.OTEL_TRACES_EXPORTER === 'console'
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(new OTLPTraceExporter()));
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(processor);
  // The interceptors use the global tracer provider, the W3C propagator and an async context
  // manager (without them, activity and client spans would each start a trace of their own).
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  current = { resource, spanProcessor: processor, shutdown: () => provider.shutdown() };
  return current;
}

/** Worker options that trace activities and export workflow spans. */
export function workerTracingOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/** Client interceptors that start a trace for each workflow a client starts. */
export function clientTracingInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } | undefined {
  return current ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}
