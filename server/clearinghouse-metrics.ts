import { Layer } from "effect"
import { SftpMetrics, type SftpMetricsSink } from "../lib/sftp/metrics.js"
import type { Registry } from "./metrics.js"

/**
 * The clearinghouse connections' metrics, labelled by connection id (a UUID: no names, hosts or
 * file names) and closed sets of outcomes, codes and alerts. A connection that never succeeded
 * reports -1 seconds since its last success. Gauges are read again every minute by the worker.
 */
export const clearinghouseMetricsLayer = (registry: Registry): Layer.Layer<SftpMetrics> => {
  const uploads = registry.counter("encounterd_clearinghouse_uploads_total", "Batch files dropped to clearinghouses, by connection and outcome")
  const pickups = registry.counter("encounterd_clearinghouse_pickups_total", "Files picked up from clearinghouses, by connection and outcome (imported, duplicate, failed)")
  const failures = registry.counter("encounterd_clearinghouse_session_failures_total", "Clearinghouse sessions that failed, by connection and error code")
  const since = registry.gauge("encounterd_clearinghouse_seconds_since_success", "Seconds since a connection's last successful session (-1: never)")
  const pending = registry.gauge("encounterd_clearinghouse_uploads_pending", "Batches not yet uploaded, by connection (at most 100 counted)")
  const alerts = registry.gauge("encounterd_clearinghouse_alerts", "Alerts a connection raises, by connection and alert (no_999_for_batch, no_835_from_payer)")
  const sink: SftpMetricsSink = {
    upload: (connection, outcome) => uploads.inc({ connection, outcome }),
    pickup: (connection, outcome) => pickups.inc({ connection, outcome }),
    sessionFailed: (connection, code) => failures.inc({ connection, code }),
    connectionState: (connection, state) => {
      since.set(state.lastSuccessMs === undefined ? -1 : Math.max(0, Math.round((Date.now() - state.lastSuccessMs) / 1000)), { connection })
      pending.set(state.pendingUploads, { connection })
      for (const [alert, n] of Object.entries(state.alerts)) alerts.set(n, { connection, alert })
    },
    // The registry keeps series once made: a deleted connection's gauges are zeroed.
    forget: (connection) => {
      pending.set(0, { connection })
      for (const alert of ["no_999_for_batch", "no_835_from_payer"]) alerts.set(0, { connection, alert })
    }
  }
  return Layer.succeed(SftpMetrics, sink)
}
