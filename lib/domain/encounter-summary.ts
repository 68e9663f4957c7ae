import { dateOfService, type EncounterWithClaim, totalChargeCents } from "./encounter.js"

export { totalChargeCents }

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

export const toEncounterSummary = ({ encounter: e, claim }: EncounterWithClaim): EncounterSummary => ({
  id: e.id,
  external_id: e.external_id,
  created_at: e.created_at,
  patient_name: `${e.payload.patient.first_name} ${e.payload.patient.last_name}`,
  date_of_service: dateOfService(e.payload),
  total_charge_cents: totalChargeCents(e.payload.service_lines),
  claim_id: claim.id,
  claim_status: claim.status,
  claim_status_changed_at: claim.status_changed_at
})
