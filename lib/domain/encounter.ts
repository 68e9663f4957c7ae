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
import { FieldIssueJson } from "./errors.js"
import { ClaimId, EncounterId, RawRequestId, WorkspaceId } from "./ids.js"
import { Remittance, REMITTANCES_SHOWN, type RemittanceRecord, toRemittance } from "./remittance.js"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The create payload as stored. It was validated in full (`validateEncounterCreate`) before it was
 * written, so a read checks its shape (an object with an external_id and a patient) rather than
 * every field again: a stored payload is decoded on every read, and full validation costs more
 * than the rest of a read together.
 */
export const StoredPayload = Schema.declare(
  (u: unknown): u is EncounterCreate => isObject(u) && typeof u.external_id === "string" && isObject(u.patient),
  { identifier: "StoredPayload", description: "A create payload, validated when it was received" }
)

/** CLM05-3: an original claim, a replacement of a prior claim, a void of a prior claim. */
export const ClaimFrequencyCodes = ["1", "7", "8"] as const
export type ClaimFrequencyCode = (typeof ClaimFrequencyCodes)[number]

/** How a claim was made from an earlier one (`correctClaim`). */
export const CorrectionActions = ["resubmit", "replace", "void", "secondary"] as const
export const CorrectionAction = Schema.Literal(...CorrectionActions)
export type CorrectionAction = typeof CorrectionAction.Type

/**
 * A stored claim: its status moves. Its content is its encounter's payload unless `payload` holds
 * its own: a claim keeps the content it was billed from when a correction brings new content to
 * the encounter (the encounter's payload is always its latest claim's).
 */
export const ClaimRecord = Schema.Struct({
  id: ClaimId,
  workspace_id: WorkspaceId,
  encounter_id: EncounterId,
  created_at: Schema.String,
  status: Schema.String,
  status_changed_at: Schema.String,
  patient_control_number: Schema.String,
  /** The payer's claim control number (277CA REF*1K, 835 CLP07), once a response named it. */
  payer_claim_control_number: Schema.NullOr(Schema.String),
  /** When a 277CA said the payer accepted the claim into adjudication (A2). */
  processing_started_at: Schema.NullOr(Schema.String),
  /** When a status inquiry (277) last answered about the claim. */
  last_checked_at: Schema.NullOr(Schema.String),
  /** CLM05-3 (`ClaimFrequencyCodes`); `1` for every claim made before corrections existed. */
  frequency_code: Schema.String,
  /** The claim this one was made from by a correction; null for an encounter's first claim. */
  resubmission_original_claim_id: Schema.NullOr(ClaimId),
  /** The correction that made it (`CorrectionActions`); null for an encounter's first claim. */
  resubmission_action: Schema.NullOr(Schema.String),
  /** The payer's claim control number of the claim a replacement or void cancels (REF*F8). */
  original_payer_claim_control_number: Schema.NullOr(Schema.String),
  /** Identifiers the exchange gave the claim: our batch's ISA13/ST02, a 277CA's REF*D9. */
  clearinghouse_transaction_ids: Schema.Array(Schema.String),
  /** For a claim billed to the secondary payer: the primary's claim, whose remittance it carries (COB). */
  primary_claim_id: Schema.NullOr(ClaimId),
  /** The content it was billed from when it is not its encounter's current payload; null: the encounter's. */
  payload: Schema.NullOr(StoredPayload)
})
export type ClaimRecord = typeof ClaimRecord.Type

/** A stored encounter: the validated payload plus what the service derived from it. */
export const EncounterRecord = Schema.Struct({
  id: EncounterId,
  workspace_id: WorkspaceId,
  external_id: Schema.String,
  created_at: Schema.String,
  source: Schema.String,
  payload: StoredPayload,
  latest_claim_id: ClaimId,
  initial_claim_status: Schema.String,
  initial_patient_control_number: Schema.String,
  last_event_at: Schema.String
})
export type EncounterRecord = typeof EncounterRecord.Type

/**
 * The encounters table's row: the encounter with a copy of its latest claim's status, times and
 * control number, so that reading an encounter is one row. The claims table stays the record;
 * every write of a claim's status writes the copy in the same transaction.
 */
export const EncounterRow = Schema.Struct({
  ...EncounterRecord.fields,
  latest_claim_status: ClaimRecord.fields.status,
  latest_claim_created_at: ClaimRecord.fields.created_at,
  latest_claim_status_changed_at: ClaimRecord.fields.status_changed_at,
  latest_claim_patient_control_number: ClaimRecord.fields.patient_control_number,
  latest_claim_payer_claim_control_number: ClaimRecord.fields.payer_claim_control_number,
  latest_claim_processing_started_at: ClaimRecord.fields.processing_started_at,
  latest_claim_last_checked_at: ClaimRecord.fields.last_checked_at,
  latest_claim_frequency_code: ClaimRecord.fields.frequency_code,
  latest_claim_resubmission_original_claim_id: ClaimRecord.fields.resubmission_original_claim_id,
  latest_claim_resubmission_action: ClaimRecord.fields.resubmission_action,
  latest_claim_original_payer_claim_control_number: ClaimRecord.fields.original_payer_claim_control_number,
  latest_claim_clearinghouse_transaction_ids: ClaimRecord.fields.clearinghouse_transaction_ids,
  latest_claim_primary_claim_id: ClaimRecord.fields.primary_claim_id,
  /** When the latest claim's latest remittance came in; null while it has none (no lookup needed). */
  latest_claim_remittances_at: Schema.NullOr(Schema.String),
  /**
   * The raw request that created the encounter (its intake log entry, outcome `accepted`); null for
   * encounters stored before intake requests had external ids. The intake log finds a create's
   * accepted request by its external id through this column, so an accepted create writes no entry
   * of its own to an index keyed by external id (the encounter's unique key already holds it).
   */
  raw_request_id: Schema.NullOr(RawRequestId),
  /**
   * How many times the row was written after its insert: every update adds one (storage does, see
   * `TableDef.revision`). Rows of one id and revision are the same, so a reader may keep what it read.
   */
  revision: Schema.Number,
  // What the list filters and the claim money read, derived from the validated payload at intake
  // (`searchColumns`; migration 13 filled them for the rows stored before). Written again only
  // with the payload, when a correction brings new content.
  /** The patient's last name in `foldName` form (the `patient_last_name` prefix filter). */
  patient_last_name_lower: Schema.String,
  patient_date_of_birth: Schema.String,
  /** The encounter's date of service, or its first line's (`dateOfService`); null without either. */
  date_of_service: Schema.NullOr(Schema.String),
  /** The primary insurance card's payer id; null without one (self-pay). */
  payer_id: Schema.NullOr(Schema.String),
  /** The sum of the service lines' charges (`totalChargeCents`): the claim's billed amount. */
  billed_cents: Schema.Number
})
export type EncounterRow = typeof EncounterRow.Type

/** A name as the last-name filter compares it: case folded, in one Unicode form. */
export const foldName = (name: string): string => name.normalize("NFC").toLowerCase()

/** The date of service a claim shows: the encounter's own, else its first service line's. */
export const dateOfService = (p: EncounterCreate): string | null => p.date_of_service ?? p.service_lines?.[0]?.date_of_service ?? null

/** The sum of the service lines' charges; a line without a charge counts as zero. */
export const totalChargeCents = (lines: ReadonlyArray<{ readonly charge_amount_cents?: number | undefined }> | undefined): number =>
  (lines ?? []).reduce((sum, line) => sum + (line.charge_amount_cents ?? 0), 0)

/** The columns of an encounter's row that the list filters and the claim counts read, from its payload. */
export const searchColumns = (p: EncounterCreate) => ({
  patient_last_name_lower: foldName(p.patient.last_name),
  patient_date_of_birth: p.patient.date_of_birth,
  date_of_service: dateOfService(p),
  payer_id: p.subscriber_primary?.insurance_card.payer_id ?? null,
  billed_cents: totalChargeCents(p.service_lines)
})

/** The claim columns the encounter's row copies (`latest_claim_*`), by the claim's column. */
const latestClaimCopies = {
  status: "latest_claim_status",
  created_at: "latest_claim_created_at",
  status_changed_at: "latest_claim_status_changed_at",
  patient_control_number: "latest_claim_patient_control_number",
  payer_claim_control_number: "latest_claim_payer_claim_control_number",
  processing_started_at: "latest_claim_processing_started_at",
  last_checked_at: "latest_claim_last_checked_at",
  frequency_code: "latest_claim_frequency_code",
  resubmission_original_claim_id: "latest_claim_resubmission_original_claim_id",
  resubmission_action: "latest_claim_resubmission_action",
  original_payer_claim_control_number: "latest_claim_original_payer_claim_control_number",
  clearinghouse_transaction_ids: "latest_claim_clearinghouse_transaction_ids",
  primary_claim_id: "latest_claim_primary_claim_id"
} as const satisfies { readonly [K in keyof ClaimRecord]?: keyof EncounterRow }

/** What the encounter's row copies of claim columns being set: the `latest_claim_*` columns. */
export const latestClaimCopy = (set: Partial<ClaimRecord>): Partial<EncounterRow> => {
  const copy: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(set)) {
    const to = (latestClaimCopies as Readonly<Record<string, string | undefined>>)[column]
    if (to !== undefined && value !== undefined) copy[to] = value
  }
  return copy as Partial<EncounterRow>
}

export interface EncounterWithClaim {
  readonly encounter: EncounterRecord
  readonly claim: ClaimRecord
  /**
   * The claim's most recent remittances (at most `REMITTANCES_SHOWN`), oldest first (reads fill
   * them; absent means none).
   */
  readonly remittances?: ReadonlyArray<RemittanceRecord>
  /** Whether the claim has more remittances than `remittances` (absent means no). */
  readonly more_remittances?: boolean
  /**
   * The encounter row's revision, when read from its row: every write that changes what a read of
   * the encounter shows writes that row (the status copy, `last_event_at`, the remittance marker),
   * so one id and revision always read the same.
   */
  readonly revision?: number
  /**
   * Every claim of the encounter, oldest first, with its most recent remittances, when the read
   * asked for them (`withAllClaims`; absent: the latest claim is the only one).
   */
  readonly all_claims?: ReadonlyArray<{
    readonly claim: ClaimRecord
    readonly remittances: ReadonlyArray<RemittanceRecord>
    readonly more_remittances: boolean
  }>
}

/**
 * An encounter of a page whose reader already holds what it needs of it at this revision (a
 * render): the page's keys and the reader's own value, without the row (`HeldEncounters`).
 */
export interface KnownEncounter<K> {
  readonly _tag: "Known"
  readonly id: EncounterId
  readonly created_at: string
  readonly revision: number
  readonly value: K
}

/**
 * What a reader already holds of encounters, by id and revision (the same id and revision always
 * read the same: `EncounterWithClaim.revision`). A page read with it reads the page's keys first,
 * then the rows of only the encounters the reader does not hold.
 */
export type HeldEncounters<K> = (id: EncounterId, revision: number) => K | undefined

/** An item of a page read with `HeldEncounters`: a row, or what the reader holds of it. */
export type ListedEncounter<K> = EncounterWithClaim | KnownEncounter<K>

export const isKnownEncounter = <K>(item: ListedEncounter<K>): item is KnownEncounter<K> => "_tag" in item && item._tag === "Known"

/** The page key (created_at, id) of a listed encounter. */
export const listedKey = <K>(item: ListedEncounter<K>): readonly [string, string] =>
  isKnownEncounter(item) ? [item.created_at, item.id] : [item.encounter.created_at, item.encounter.id]

/** The row of an encounter whose latest claim is `claim`, created by the raw request `rawRequestId`. */
export const toEncounterRow = (encounter: EncounterRecord, claim: ClaimRecord, rawRequestId: RawRequestId | null): EncounterRow => ({
  ...encounter,
  raw_request_id: rawRequestId,
  ...(latestClaimCopy(claim) as Pick<EncounterRow, (typeof latestClaimCopies)[keyof typeof latestClaimCopies]>),
  latest_claim_remittances_at: null,
  revision: 0,
  ...searchColumns(encounter.payload)
})

export const fromEncounterRow = (r: EncounterRow): EncounterWithClaim => ({
  encounter: {
    id: r.id,
    workspace_id: r.workspace_id,
    external_id: r.external_id,
    created_at: r.created_at,
    source: r.source,
    // Read from the row when needed: a stored row's payload may be parsed only then (`TableDef.lazy`).
    get payload() {
      return r.payload
    },
    latest_claim_id: r.latest_claim_id,
    initial_claim_status: r.initial_claim_status,
    initial_patient_control_number: r.initial_patient_control_number,
    last_event_at: r.last_event_at
  },
  claim: {
    id: r.latest_claim_id,
    workspace_id: r.workspace_id,
    encounter_id: r.id,
    created_at: r.latest_claim_created_at,
    status: r.latest_claim_status,
    status_changed_at: r.latest_claim_status_changed_at,
    patient_control_number: r.latest_claim_patient_control_number,
    payer_claim_control_number: r.latest_claim_payer_claim_control_number,
    processing_started_at: r.latest_claim_processing_started_at,
    last_checked_at: r.latest_claim_last_checked_at,
    frequency_code: r.latest_claim_frequency_code,
    resubmission_original_claim_id: r.latest_claim_resubmission_original_claim_id,
    resubmission_action: r.latest_claim_resubmission_action,
    original_payer_claim_control_number: r.latest_claim_original_payer_claim_control_number,
    clearinghouse_transaction_ids: r.latest_claim_clearinghouse_transaction_ids,
    primary_claim_id: r.latest_claim_primary_claim_id,
    // The latest claim's content is its encounter's payload.
    payload: null
  },
  revision: r.revision
})


/** What happened to one stored raw request. */
export const RawOutcome = Schema.Union(
  Schema.Struct({ outcome: Schema.Literal("accepted"), encounter_id: EncounterId }),
  Schema.Struct({ outcome: Schema.Literal("duplicate"), encounter_id: EncounterId }),
  Schema.Struct({ outcome: Schema.Literal("rejected"), errors: Schema.Array(FieldIssueJson) })
)
export type RawOutcome = typeof RawOutcome.Type

export const IntakeOutcomes = ["accepted", "duplicate", "rejected"] as const
export const IntakeOutcome = Schema.Literal(...IntakeOutcomes)
export type IntakeOutcome = typeof IntakeOutcome.Type

/**
 * Every create request as received, stored with its outcome in one write (with the encounter, for
 * an accepted one): never without an outcome, and before any answer is sent. `outcome` and
 * `external_id` are kept beside `result` for the intake log's filters; rows written before they
 * existed have them null.
 */
export const RawRequestRecord = Schema.Struct({
  id: RawRequestId,
  workspace_id: WorkspaceId,
  key_id: Schema.NullOr(Schema.String),
  received_at: Schema.String,
  content_type: Schema.String,
  body: Schema.Uint8ArrayFromSelf,
  external_id: Schema.NullOr(Schema.String),
  outcome: Schema.NullOr(IntakeOutcome),
  result: Schema.NullOr(RawOutcome)
})
export type RawRequestRecord = typeof RawRequestRecord.Type

const Nullable = Schema.NullOr

/** A normalized service line: as sent, with `quantity` as a number. */
export const NormalizedServiceLine = Schema.Struct({ ...ServiceLine.fields, quantity: Schema.Number }).annotations({
  identifier: "ServiceLine"
})

// The clinical parts, named so that the API description shares one definition of each.
const PatientDoc = Patient.annotations({ identifier: "Patient" })
const BillingProviderDoc = BillingProvider.annotations({ identifier: "BillingProvider" })
const RenderingProviderDoc = RenderingProvider.annotations({ identifier: "RenderingProvider" })
const DiagnosisDoc = Diagnosis.annotations({ identifier: "Diagnosis" })
const ServiceFacilityDoc = ServiceFacility.annotations({ identifier: "ServiceFacility" })
const SubscriberDoc = Subscriber.annotations({ identifier: "Subscriber" })
const SchemaInstanceDoc = SchemaInstance.annotations({ identifier: "SchemaInstance" })

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
  patient: PatientDoc,
  billing_provider: BillingProviderDoc,
  rendering_provider: RenderingProviderDoc,
  diagnoses: Schema.Array(DiagnosisDoc),
  service_lines: Schema.Array(NormalizedServiceLine),
  service_facility: Nullable(ServiceFacilityDoc),
  subscriber_primary: Nullable(SubscriberDoc),
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
  clearinghouse_transaction_ids: Schema.Array(Schema.String),
  payer_claim_control_number: Nullable(Schema.String),
  remittances: Schema.Array(Remittance).annotations({
    description: `The claim's most recent remittances (835s that named it), oldest first: at most ${REMITTANCES_SHOWN}; all of them are at /api/claims/{claim_id}/remittances`
  }),
  more_remittances: Schema.Boolean.annotations({ description: "Whether the claim has more remittances than remittances lists" })
}).annotations({ identifier: "Claim", description: "A claim in the normalized shape, with the clinical content of its encounter" })
export type Claim = typeof Claim.Type

/** The normalized Encounter with its latest claim. */
export const Encounter = Schema.Struct({
  id: Schema.String,
  external_id: Schema.String,
  created_at: Schema.String,
  source: Schema.String,
  metadata: Nullable(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  schema_instances: Schema.Array(SchemaInstanceDoc),
  patient_id: Nullable(Schema.String),
  service_facility_id: Nullable(Schema.String),
  latest_claim_id: Nullable(Schema.String),
  initial_claim_status: Nullable(Schema.String),
  initial_patient_control_number: Nullable(Schema.String),
  last_event_at: Nullable(Schema.String),
  latest_claim: Claim
}).annotations({ identifier: "Encounter", description: "An encounter in the normalized shape, with its latest claim" })
export type Encounter = typeof Encounter.Type

/** The first claim's status: `not_billable` for NOT_BILLABLE encounters, else `draft`. */
export const initialClaimStatus = (p: EncounterCreate): "draft" | "not_billable" =>
  p.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft"

/** The content a claim was billed from: its own, else its encounter's current payload. */
export const claimPayload = (encounterPayload: EncounterCreate, c: ClaimRecord): EncounterCreate => c.payload ?? encounterPayload

/** The subscriber whose payer a claim bills: the secondary for a claim made by `secondary`, else the primary. */
export const billedSubscriber = (p: EncounterCreate, c: ClaimRecord) => (c.primary_claim_id === null ? p.subscriber_primary : p.subscriber_secondary)

/** A claim in the normalized shape; `encounterPayload` is its encounter's (the claim's own `payload` wins). */
export const toClaim = (encounterPayload: EncounterCreate, c: ClaimRecord, remittances: ReadonlyArray<RemittanceRecord> = [], moreRemittances = false): Claim => {
  const p = claimPayload(encounterPayload, c)
  const billed = billedSubscriber(p, c)
  return {
    id: c.id,
    created_at: c.created_at,
    status: c.status,
    status_changed_at: c.status_changed_at,
    last_checked_at: c.last_checked_at,
    processing_started_at: c.processing_started_at,
    processing_ended_at: null,
    patient_control_number: c.patient_control_number,
    patient: p.patient,
    billing_provider: p.billing_provider,
    rendering_provider: p.rendering_provider,
    diagnoses: p.diagnoses,
    service_lines: (p.service_lines ?? []).map((l) => ({ ...l, quantity: Number(l.quantity) })),
    service_facility: p.service_facility ?? null,
    subscriber_primary: p.subscriber_primary ?? null,
    payer_id: billed?.insurance_card.payer_id ?? null,
    payer_name: billed?.insurance_card.payer_name ?? null,
    patient_authorized_release: p.patient_authorized_release,
    benefits_assigned_to_provider: p.benefits_assigned_to_provider,
    provider_accepts_assignment: p.provider_accepts_assignment,
    billable_status: p.billable_status,
    responsible_party: p.responsible_party,
    place_of_service_code: p.place_of_service_code,
    date_of_service: dateOfService(p),
    resubmission_original_claim_id: c.resubmission_original_claim_id,
    resubmission_action: c.resubmission_action,
    original_payer_claim_control_number: c.original_payer_claim_control_number,
    clearinghouse_transaction_ids: c.clearinghouse_transaction_ids,
    payer_claim_control_number: c.payer_claim_control_number,
    remittances: remittances.map(toRemittance),
    more_remittances: moreRemittances
  }
}

export const toEncounter = ({ encounter: e, claim, remittances, more_remittances }: EncounterWithClaim): Encounter => ({
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
  latest_claim: toClaim(e.payload, claim, remittances, more_remittances)
})
