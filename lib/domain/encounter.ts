import { Schema } from "effect"
import {
  BillingProvider,
  Diagnosis,
  type EncounterCreate,
  Patient,
  RenderingProvider,
  SchemaInstance,
  ServiceFacility,
  ServiceLine,
  Subscriber
} from "./encounter-input.js"
import type { ClaimId, EncounterId, RawRequestId, WorkspaceId } from "./ids.js"

/** A stored encounter: the validated payload plus what the service derived from it. */
export interface EncounterRecord {
  readonly id: EncounterId
  readonly workspace_id: WorkspaceId
  readonly external_id: string
  readonly created_at: string
  readonly source: string
  readonly payload: EncounterCreate
  readonly latest_claim_id: ClaimId
  readonly initial_claim_status: string
  readonly initial_patient_control_number: string
  readonly last_event_at: string
}

/** A stored claim: its status moves; the clinical content stays on the encounter's payload. */
export interface ClaimRecord {
  readonly id: ClaimId
  readonly workspace_id: WorkspaceId
  readonly encounter_id: EncounterId
  readonly created_at: string
  readonly status: string
  readonly status_changed_at: string
  readonly patient_control_number: string
}

export interface EncounterWithClaim {
  readonly encounter: EncounterRecord
  readonly claim: ClaimRecord
}

/** What happened to one stored raw request. */
export type RawOutcome =
  | { readonly outcome: "accepted"; readonly encounter_id: EncounterId }
  | { readonly outcome: "duplicate"; readonly encounter_id: EncounterId }
  | { readonly outcome: "rejected"; readonly errors: ReadonlyArray<{ readonly path: string; readonly message: string }> }

/**
 * Every create request as received. It is stored together with its outcome, in one write (with the
 * encounter, for an accepted one): never without an outcome, and before any answer is sent.
 */
export interface RawRequestRecord {
  readonly id: RawRequestId
  readonly workspace_id: WorkspaceId
  readonly key_id: string | null
  readonly received_at: string
  readonly content_type: string
  readonly body: Uint8Array
}
export interface StoredRawRequest extends RawRequestRecord {
  readonly result: RawOutcome | null
}

const Nullable = Schema.NullOr

/** A normalized service line: as sent, with `quantity` as a number. */
export const NormalizedServiceLine = Schema.Struct({ ...ServiceLine.fields, quantity: Schema.Number })

/** The normalized Claim of the spec's reference-style reads. */
export const Claim = Schema.Struct({
  id: Schema.String,
  created_at: Schema.String,
  status: Schema.String,
  status_changed_at: Schema.String,
  last_checked_at: Nullable(Schema.String),
  processing_started_at: Nullable(Schema.String),
  processing_ended_at: Nullable(Schema.String),
  patient_control_number: Schema.String,
  patient: Patient,
  billing_provider: BillingProvider,
  rendering_provider: RenderingProvider,
  diagnoses: Schema.Array(Diagnosis),
  service_lines: Schema.Array(NormalizedServiceLine),
  service_facility: Nullable(ServiceFacility),
  subscriber_primary: Nullable(Subscriber),
  payer_id: Nullable(Schema.String),
  payer_name: Nullable(Schema.String),
  patient_authorized_release: Schema.Boolean,
  benefits_assigned_to_provider: Schema.Boolean,
  provider_accepts_assignment: Schema.Boolean,
  billable_status: Schema.String,
  responsible_party: Schema.String,
  place_of_service_code: Schema.String,
  date_of_service: Nullable(Schema.String),
  resubmission_original_claim_id: Nullable(Schema.String),
  resubmission_action: Nullable(Schema.String),
  original_payer_claim_control_number: Nullable(Schema.String),
  clearinghouse_transaction_ids: Schema.Array(Schema.String)
})
export type Claim = typeof Claim.Type

/** The normalized Encounter with its latest claim. */
export const Encounter = Schema.Struct({
  id: Schema.String,
  external_id: Schema.String,
  created_at: Schema.String,
  source: Schema.String,
  metadata: Nullable(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  schema_instances: Schema.Array(SchemaInstance),
  patient_id: Nullable(Schema.String),
  service_facility_id: Nullable(Schema.String),
  latest_claim_id: Nullable(Schema.String),
  initial_claim_status: Nullable(Schema.String),
  initial_patient_control_number: Nullable(Schema.String),
  last_event_at: Nullable(Schema.String),
  latest_claim: Claim
})
export type Encounter = typeof Encounter.Type

/** The first claim's status: `not_billable` for NOT_BILLABLE encounters, else `draft`. */
export const initialClaimStatus = (p: EncounterCreate): "draft" | "not_billable" =>
  p.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft"

export const toClaim = (p: EncounterCreate, c: ClaimRecord): Claim => ({
  id: c.id,
  created_at: c.created_at,
  status: c.status,
  status_changed_at: c.status_changed_at,
  last_checked_at: null,
  processing_started_at: null,
  processing_ended_at: null,
  patient_control_number: c.patient_control_number,
  patient: p.patient,
  billing_provider: p.billing_provider,
  rendering_provider: p.rendering_provider,
  diagnoses: p.diagnoses,
  service_lines: (p.service_lines ?? []).map((l) => ({ ...l, quantity: Number(l.quantity) })),
  service_facility: p.service_facility ?? null,
  subscriber_primary: p.subscriber_primary ?? null,
  payer_id: p.subscriber_primary?.insurance_card.payer_id ?? null,
  payer_name: p.subscriber_primary?.insurance_card.payer_name ?? null,
  patient_authorized_release: p.patient_authorized_release,
  benefits_assigned_to_provider: p.benefits_assigned_to_provider,
  provider_accepts_assignment: p.provider_accepts_assignment,
  billable_status: p.billable_status,
  responsible_party: p.responsible_party,
  place_of_service_code: p.place_of_service_code,
  date_of_service: p.date_of_service ?? p.service_lines?.[0]?.date_of_service ?? null,
  resubmission_original_claim_id: null,
  resubmission_action: null,
  original_payer_claim_control_number: null,
  clearinghouse_transaction_ids: []
})

export const toEncounter = ({ encounter: e, claim }: EncounterWithClaim): Encounter => ({
  id: e.id,
  external_id: e.external_id,
  created_at: e.created_at,
  source: e.source,
  metadata: e.payload.metadata ?? null,
  schema_instances: e.payload.schema_instances ?? [],
  // Spec gap: null until the service keeps patient and facility records of its own.
  patient_id: null,
  service_facility_id: null,
  latest_claim_id: claim.id,
  initial_claim_status: e.initial_claim_status,
  initial_patient_control_number: e.initial_patient_control_number,
  last_event_at: e.last_event_at,
  latest_claim: toClaim(e.payload, claim)
})
