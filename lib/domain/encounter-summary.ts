import type { EncounterWithClaim } from "./encounter.js"

/** One encounter as a list row: who, when, how much, and where its claim stands. */
export interface EncounterSummary {
  readonly id: string
  readonly external_id: string
  readonly created_at: string
  readonly patient_name: string
  readonly date_of_service: string | null
  /** Sum of the service lines' charges; lines without a charge count as zero. */
  readonly total_charge_cents: number
  readonly claim_id: string
  readonly claim_status: string
  readonly claim_status_changed_at: string
}

export const totalChargeCents = (lines: ReadonlyArray<{ readonly charge_amount_cents?: number | undefined }> | undefined): number =>
  (lines ?? []).reduce((sum, line) => sum + (line.charge_amount_cents ?? 0), 0)

export const toEncounterSummary = ({ encounter: e, claim }: EncounterWithClaim): EncounterSummary => ({
  id: e.id,
  external_id: e.external_id,
  created_at: e.created_at,
  patient_name: `${e.payload.patient.first_name} ${e.payload.patient.last_name}`,
  date_of_service: e.payload.date_of_service ?? e.payload.service_lines?.[0]?.date_of_service ?? null,
  total_charge_cents: totalChargeCents(e.payload.service_lines),
  claim_id: claim.id,
  claim_status: claim.status,
  claim_status_changed_at: claim.status_changed_at
})
