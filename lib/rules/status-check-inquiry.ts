import type { EncounterWithClaim } from "../domain/encounter.js"
import { MAX_WINDOW_DAYS, type StatusCheckRecord } from "../domain/status-check.js"
import type { Inquiry276 } from "../x12/export-276/build.js"

const DAY_MS = 86_400_000
const shift = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/**
 * The claim's dates of service, first and last: the encounter's, else its lines' (with their end
 * dates); undefined without any.
 */
export const serviceDates = (p: EncounterWithClaim["encounter"]["payload"]): { from: string; to: string } | undefined => {
  const dates = [p.date_of_service, p.end_date_of_service, ...(p.service_lines ?? []).flatMap((l) => [l.date_of_service, l.end_date_of_service])]
    .filter((d): d is string => d !== undefined)
    .sort()
  const from = dates[0]
  const to = dates[dates.length - 1]
  return from === undefined || to === undefined ? undefined : { from, to }
}

/** The 276's service-date window: the date(s) of service, widened by `windowDays` (at most 30) either side. */
export const serviceWindow = (p: EncounterWithClaim["encounter"]["payload"], windowDays: number) => {
  const dates = serviceDates(p)
  if (dates === undefined) return undefined
  const days = Math.max(0, Math.min(windowDays, MAX_WINDOW_DAYS))
  return { from: shift(dates.from, -days), to: shift(dates.to, days) }
}

/** What the 276 asks about one check's claim. */
export const inquiryOf = (check: StatusCheckRecord, found: EncounterWithClaim, windowDays: number): Inquiry276 => {
  const window = serviceWindow(found.encounter.payload, windowDays)
  const created = check.created_at.slice(0, 10)
  return {
    trace_number: check.trace_number,
    claim_id: check.claim_id,
    patient_control_number: found.claim.patient_control_number,
    payer_claim_control_number: found.claim.payer_claim_control_number,
    payload: found.encounter.payload,
    // A payload validated at intake has a date of service; the check's day stands in otherwise.
    service_from: window?.from ?? created,
    service_to: window?.to ?? created
  }
}
