import { Context } from "effect"

/**
 * Where the clearinghouse worker reports, for `/metrics`. Labels are the connection's id (never a
 * name, file name or anything of a patient) and closed sets of outcomes and codes.
 */
export interface SftpMetricsSink {
  readonly upload: (connectionId: string, outcome: "uploaded" | "failed") => void
  readonly pickup: (connectionId: string, outcome: "imported" | "duplicate" | "failed") => void
  readonly sessionFailed: (connectionId: string, code: string) => void
  /** The connection's state as last read: its last success (ms, or undefined), pending uploads and alerts by code. */
  readonly connectionState: (
    connectionId: string,
    state: { readonly lastSuccessMs: number | undefined; readonly pendingUploads: number; readonly alerts: Readonly<Record<string, number>> }
  ) => void
  /** The connection is gone: its series are dropped. */
  readonly forget: (connectionId: string) => void
}

export const noSftpMetrics: SftpMetricsSink = {
  upload: () => undefined,
  pickup: () => undefined,
  sessionFailed: () => undefined,
  connectionState: () => undefined,
  forget: () => undefined
}

export class SftpMetrics extends Context.Reference<SftpMetrics>()("encounters/SftpMetrics", { defaultValue: (): SftpMetricsSink => noSftpMetrics }) {}
