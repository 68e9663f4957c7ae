import { Effect, FiberRef } from "effect"
import type { AuditRecord } from "../domain/audit.js"
import type { Step } from "../ports/write.js"
import { insert } from "../ports/write.js"

/**
 * A change's audit entry, waiting for the change it records. The first write committed in its
 * scope carries it (`commit` adds its insert), so the change and its entry commit together, in one
 * transaction and one sync, and there is no change on record without its entry. `open`: no write
 * has taken it; `claimed`: a write holding it is on its way; `written`: it is committed.
 */
export interface CarriedAudit {
  readonly entry: AuditRecord
  state: "open" | "claimed" | "written"
  /** The outcome it was written with: `ok`, or `failed` when the write recorded a refusal. */
  outcome?: AuditRecord["outcome"]
}

/** Not passed to forked fibers: only the request's own writes carry its entry. */
const Carried = FiberRef.unsafeMake<CarriedAudit | undefined>(undefined, { fork: () => undefined, join: (parent) => parent })

/** Runs `work` with `carried` waiting for its first write. */
export const carryingAudit = <A, E, R>(carried: CarriedAudit, work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(work, Carried, carried)

/**
 * The step that writes the waiting entry, claimed for this write, if there is one; `settle` says
 * how the write ended (the entry is written with it, or open again for a later write).
 */
export const claimCarried = <R>(refusal: boolean): Effect.Effect<{ readonly step: Step<R>; readonly settle: (written: boolean) => void } | undefined> =>
  Effect.map(FiberRef.get(Carried), (carried) => {
    if (carried === undefined || carried.state !== "open") return undefined
    carried.state = "claimed"
    const entry: AuditRecord = refusal ? { ...carried.entry, outcome: "failed" } : carried.entry
    return {
      step: insert("audit_log", entry),
      settle: (written) => {
        carried.state = written ? "written" : "open"
        if (written) carried.outcome = entry.outcome
      }
    }
  })
