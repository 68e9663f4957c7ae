import type { InboundClaimOutcome } from "../domain/x12-exchange.js"
import { X12ReadError } from "../x12/errors.js"
import type { Interchange } from "../x12/read/interchange.js"
import type { StatusAction } from "../x12/status-mapping.js"
import type { Parsed } from "./x12-import-read.js"

/**
 * What one imported file may do, and how what it repeats is merged. A file is at most 10 MiB
 * (the API's body limit), but what it makes is stored and read back again and again (the file's
 * outcomes, a claim's remittances), so it is bounded by the claims the file names, not by its size:
 *
 * - A claim a 999 or a 277CA names many times has one outcome, the file's last decision on it,
 *   whose note says how many entries it stands for (`lastOf`, `noted`).
 * - A claim an 835 names has one remittance and one outcome per CLP, at most
 *   `MAX_CLAIM_PAYMENTS_PER_FILE`; a file with more for one claim is refused whole.
 * - A 999 acknowledges at most `MAX_999_GROUPS` batches; a file with more is refused whole.
 * - At most `MAX_UNMATCHED_OUTCOMES` entries that name no claim of the workspace are listed one by
 *   one; the rest are counted in one more outcome (`boundedPositions`).
 */

/**
 * CLPs one 835 may carry for one claim: a reversal (CLP02 22), its correction, and one more (a
 * claim the payer split). Each becomes a remittance of the claim; a file that repeats a claim
 * more often is refused whole rather than stored in part, since its payments would not add up.
 */
export const MAX_CLAIM_PAYMENTS_PER_FILE = 3

/**
 * Functional groups (our 837P batches, AK102) one 999 may acknowledge. Each batch we send is an
 * interchange of one group, acknowledged by a 999 of its own; a clearinghouse may bundle some.
 */
export const MAX_999_GROUPS = 100

const ordinal = (n: number) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`

/** The first thing in the file beyond what one file may do, as the error that refuses the file. */
export const beyondBounds = (interchange: Interchange, parsed: Parsed): X12ReadError | undefined => {
  if (parsed.kind === "835") {
    const seen = new Map<string, number>()
    for (const payment of parsed.payments) {
      for (const c of payment.claims) {
        const n = (seen.get(c.patient_control_number) ?? 0) + 1
        seen.set(c.patient_control_number, n)
        if (n > MAX_CLAIM_PAYMENTS_PER_FILE) {
          return new X12ReadError({
            segment_id: "CLP",
            position: c.position,
            reason: `the ${ordinal(n)} CLP for patient control number ${c.patient_control_number} in one file: at most ${MAX_CLAIM_PAYMENTS_PER_FILE} are taken for one claim (a reversal, its correction and one more)`
          })
        }
      }
    }
  }
  if (parsed.kind === "999") {
    // read999 reads one group per transaction set, in order.
    const sets = interchange.groups.flatMap((g) => g.transaction_sets)
    const groups = new Set<string>()
    for (let i = 0; i < parsed.groups.length; i++) {
      groups.add(parsed.groups[i]!.group_control_number)
      if (groups.size > MAX_999_GROUPS) {
        return new X12ReadError({
          segment_id: "ST",
          position: sets[i]?.position ?? 1,
          reason: `a 999 acknowledging more than ${MAX_999_GROUPS} functional groups: at most ${MAX_999_GROUPS} are taken in one file`
        })
      }
    }
  }
  return undefined
}

/**
 * Entries naming no claim of the workspace listed one by one. A file with more is most likely not
 * this workspace's; its bytes are kept, and one more outcome counts the rest.
 */
export const MAX_UNMATCHED_OUTCOMES = 1000

/**
 * Entries of a file merged by key: the last entry of each key, how many there were, in the order
 * of each key's last entry. A claim the file names many times is decided once, by its last entry.
 */
export const lastOf = <A>(entries: Iterable<A>, keyOf: (a: A) => string): Map<string, { readonly entry: A; readonly count: number }> => {
  const last = new Map<string, { readonly entry: A; readonly count: number }>()
  for (const entry of entries) {
    const key = keyOf(entry)
    const count = (last.get(key)?.count ?? 0) + 1
    // Taken out and put back: a Map keeps the order keys were first set in.
    last.delete(key)
    last.set(key, { entry, count })
  }
  return last
}

/** A decision's note, saying how many of the file's entries it stands for. */
export const noted = (note: string, count: number) => (count === 1 ? note : `${note} (named ${count} times in this file; the last entry kept)`)
export const notedAction = (action: StatusAction, count: number): StatusAction => ({ ...action, note: noted(action.note, count) })

/**
 * Where each outcome is stored among the file's outcomes: at most `MAX_UNMATCHED_OUTCOMES`
 * unmatched ones keep a place (`undefined`: counted, not listed), and `tail`, when some are
 * counted, is the one more outcome that counts them, after all the others (at `kept`).
 */
export const boundedPositions = (
  outcomes: ReadonlyArray<InboundClaimOutcome>
): { readonly positions: ReadonlyArray<number | undefined>; readonly kept: number; readonly tail: InboundClaimOutcome | undefined } => {
  let unmatched = 0
  let kept = 0
  const positions: Array<number | undefined> = []
  const rest: Array<InboundClaimOutcome> = []
  for (const o of outcomes) {
    if (o.outcome === "unmatched" && ++unmatched > MAX_UNMATCHED_OUTCOMES) {
      rest.push(o)
      positions.push(undefined)
    } else positions.push(kept++)
  }
  const first = rest[0]
  const last = rest[rest.length - 1]
  if (first === undefined || last === undefined) return { positions, kept, tail: undefined }
  const named = (o: InboundClaimOutcome) => o.patient_control_number ?? "(no control number)"
  const tail: InboundClaimOutcome = {
    patient_control_number: null,
    claim_id: null,
    outcome: "unmatched",
    previous_status: null,
    status: null,
    detail: `${rest.length} more entries name no claim of this workspace (from ${named(first)} to ${named(last)}); the file is kept as received`,
    response: null
  }
  return { positions, kept, tail }
}
