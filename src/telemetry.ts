/**
 * Process-wide Temporal runtime setup for Cohort processes: log level, and a Prometheus endpoint
 * (the runtime's own worker metrics plus Cohort's model-call metrics, see src/activities/metrics.ts)
 * when COHORT_METRICS_ADDRESS (or --metrics) names a bind address like 0.0.0.0:9464.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

export interface TelemetryOptions {
  logLevel?: LogLevel;
  /** host:port for the Prometheus exporter (`/metrics`). */
  metricsAddress?: string;
}

let installed = false;

/** Installs the runtime once per process; later calls are ignored (the first one wins). */
export function installRuntime(opts: TelemetryOptions = {}): void {
  if (installed) return;
  installed = true;
  const metricsAddress = opts.metricsAddress ?? process.env.COHORT_METRICS_ADDRESS;
  try {
    Runtime.install({
      logger: new DefaultLogger(opts.logLevel ?? 'ERROR'),
      ...(metricsAddress
        ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } }
        : {}),
    });
  } catch {
    // A runtime already exists in this process (created implicitly): keep it.
  }
}
