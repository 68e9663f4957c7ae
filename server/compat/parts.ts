import { createHash } from "node:crypto"
import type { AddressLongZip, EncounterCreate, Subscriber } from "../../lib/domain/encounter-input.js"

/**
 * Building blocks of the compat (vendor v4) Encounter response: stable ids, key picking, and the
 * people and places of an encounter (providers, patient, subscribers, guarantor, facility).
 * Key lists mirror the response shapes of the vendor SDK (`candidhealth` 1.33.0): a create-only
 * key (e.g. `emr_payer_crosswalk`) would make the vendor's strict parse fail, so nothing is
 * copied by spreading the stored payload; every emitted key is named here.
 */

/**
 * A UUID-formatted SHA-256 of `${encounterId}/${kind}/${index}`. The service keeps no records of
 * its own for patients, providers, diagnoses, lines, cards or notes, so their vendor ids are
 * derived: the same stored row always reads back with the same ids. Version 8 (RFC 9562,
 * "custom") with the RFC variant bits, so it is a well-formed UUID that cannot collide with the
 * service's own UUIDv7 ids.
 */
export const stableId = (encounterId: string, kind: string, index = 0): string => {
  const h = createHash("sha256").update(`${encounterId}/${kind}/${index}`).digest()
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x80
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80
  const x = h.subarray(0, 16).toString("hex")
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

/**
 * Copies the named keys that hold a value. Absent keys stay absent: the response never carries
 * `undefined` or `null` (the strict parse reads `null` as absent only on optional keys).
 */
export const pick = <T extends object, K extends keyof T>(o: T, keys: ReadonlyArray<K>): Partial<Pick<T, K>> => {
  const out: Partial<Pick<T, K>> = {}
  for (const k of keys) {
    const v = o[k]
    if (v !== undefined && v !== null) out[k] = v
  }
  return out
}

type Payload = EncounterCreate

const nonBlank = (s: string | undefined): s is string => s !== undefined && s.trim() !== ""
type Defined<T> = Exclude<T, undefined>

// ---------------------------------------------------------------------------------------------
// Providers

/** Every field any create-side provider can carry (billing, rendering, referring, ordering, ...). */
interface ProviderIn {
  readonly npi: string
  readonly address?: AddressLongZip
  readonly tax_id?: string
  readonly taxonomy_code?: string
  readonly qualifier?: string
  readonly provider_commercial_license_type?: string
  readonly secondary_identification?: {
    readonly reference_identification: string
    readonly reference_identification_qualifier?: string
  }
  readonly first_name?: string
  readonly last_name?: string
  readonly organization_name?: string
}
export const PROVIDER_KEYS = [
  "tax_id",
  "taxonomy_code",
  "qualifier",
  "provider_commercial_license_type",
  "secondary_identification",
  "first_name",
  "last_name",
  "organization_name"
] as const

/** The vendor's `EncounterProvider`: its address is required, unlike on create. */
export interface CompatProvider extends Pick<ProviderIn, (typeof PROVIDER_KEYS)[number]> {
  readonly provider_id: string
  readonly npi: string
  readonly address: AddressLongZip
}

/**
 * A provider sent without an address gets the billing provider's: the response requires one, and
 * the billing address is where the claim says the practice is.
 */
export const toProvider = (p: ProviderIn, providerId: string, fallbackAddress: AddressLongZip): CompatProvider => ({
  provider_id: providerId,
  npi: p.npi,
  address: p.address ?? fallbackAddress,
  ...pick(p, PROVIDER_KEYS)
})

type TreatingIn = Defined<Payload["treating_provider"]>
export const TREATING_KEYS = ["npi", "taxonomy_code", "address", "license_type"] as const
export interface CompatAdditionalProvider
  extends Pick<TreatingIn, "first_name" | "last_name" | (typeof TREATING_KEYS)[number]> {
  readonly provider_id: string
}

/** `treating_provider` is an `EncounterAdditionalProvider`: its address stays optional, so none is filled. */
export const toTreatingProvider = (p: TreatingIn, providerId: string): CompatAdditionalProvider => ({
  provider_id: providerId,
  first_name: p.first_name,
  last_name: p.last_name,
  ...pick(p, TREATING_KEYS)
})

// ---------------------------------------------------------------------------------------------
// Patient

type PatientIn = Payload["patient"]
type PhoneNumbers = Defined<PatientIn["phone_numbers"]>

export interface CompatPatient
  extends Pick<PatientIn, "external_id" | "first_name" | "last_name" | "gender" | "date_of_birth" | "address" | "email"> {
  readonly individual_id: string
  readonly phone_numbers: PhoneNumbers
  readonly phone_consent: boolean
  readonly email_consent: boolean
  readonly auto_charge_consent: boolean
  readonly non_insurance_payers: ReadonlyArray<never>
  readonly non_insurance_payers_info: ReadonlyArray<never>
}

export const toPatient = (p: PatientIn, individualId: string): CompatPatient => ({
  individual_id: individualId,
  external_id: p.external_id,
  first_name: p.first_name,
  last_name: p.last_name,
  gender: p.gender,
  date_of_birth: p.date_of_birth,
  address: p.address,
  ...pick(p, ["email"]),
  phone_numbers: p.phone_numbers ?? [],
  phone_consent: p.phone_consent ?? false,
  email_consent: p.email_consent ?? false,
  auto_charge_consent: p.auto_charge_consent ?? false,
  // The response wants full NonInsurancePayer objects (name, enabled, clinical trials, ...); the
  // create payload only carries their ids and the service keeps no payer directory to expand
  // them from, so both lists are empty rather than invented.
  non_insurance_payers: [],
  non_insurance_payers_info: []
})

// ---------------------------------------------------------------------------------------------
// Subscribers (insured persons) and their cards

type CardIn = Subscriber["insurance_card"]
/** The response card's optional keys. Not `emr_payer_crosswalk` / `payer_plan_group_name`: create-only. */
export const CARD_KEYS = [
  "rx_bin",
  "rx_pcn",
  "image_url_front",
  "image_url_back",
  "group_number",
  "plan_name",
  "plan_type",
  "insurance_type",
  "payer_plan_group_id",
  "payer_address"
] as const
export interface CompatInsuranceCard
  extends Pick<CardIn, "member_id" | "payer_name" | "payer_id" | (typeof CARD_KEYS)[number]> {
  readonly insurance_card_id: string
}

export const SUBSCRIBER_KEYS = ["date_of_birth", "address"] as const
export interface CompatSubscriber
  extends Pick<
    Subscriber,
    "patient_relationship_to_subscriber_code" | "first_name" | "last_name" | "gender" | (typeof SUBSCRIBER_KEYS)[number]
  > {
  readonly individual_id: string
  readonly insurance_card: CompatInsuranceCard
}

export const toSubscriber = (s: Subscriber, individualId: string, cardId: string): CompatSubscriber => ({
  individual_id: individualId,
  first_name: s.first_name,
  last_name: s.last_name,
  gender: s.gender,
  patient_relationship_to_subscriber_code: s.patient_relationship_to_subscriber_code,
  ...pick(s, SUBSCRIBER_KEYS),
  insurance_card: {
    insurance_card_id: cardId,
    member_id: s.insurance_card.member_id,
    payer_name: s.insurance_card.payer_name,
    payer_id: s.insurance_card.payer_id,
    ...pick(s.insurance_card, CARD_KEYS)
  }
})

// ---------------------------------------------------------------------------------------------
// Guarantor

type GuarantorIn = Defined<Payload["guarantor"]>
export interface CompatGuarantor
  extends Pick<GuarantorIn, "first_name" | "last_name" | "external_id" | "address" | "email" | "date_of_birth"> {
  readonly guarantor_id: string
  readonly phone_numbers: PhoneNumbers
  readonly phone_consent: boolean
  readonly email_consent: boolean
  readonly auto_charge_consent: boolean
}

export const toGuarantor = (g: GuarantorIn, guarantorId: string): CompatGuarantor => ({
  guarantor_id: guarantorId,
  first_name: g.first_name,
  last_name: g.last_name,
  external_id: g.external_id,
  address: g.address,
  ...pick(g, ["email", "date_of_birth"]),
  phone_numbers: g.phone_numbers ?? [],
  phone_consent: g.phone_consent ?? false,
  email_consent: g.email_consent ?? false,
  auto_charge_consent: g.auto_charge_consent ?? false
})

// ---------------------------------------------------------------------------------------------
// Service facility

type FacilityIn = Defined<Payload["service_facility"]>
export const FACILITY_KEYS = ["npi", "secondary_identification", "mammography_certification_number"] as const
export interface CompatServiceFacility
  extends Pick<FacilityIn, "organization_name" | "address" | (typeof FACILITY_KEYS)[number]> {
  readonly service_facility_id: string
}

/**
 * The response requires a facility; create does not. Without one (or with only a
 * `service_facility_id` the service cannot resolve: it keeps no facility directory) the billing
 * provider stands in, as on a paper claim where box 32 defaults to box 33. Its name falls back
 * to the provider's person name, then to its NPI, because `organization_name` is required.
 */
export const toServiceFacility = (p: Payload, facilityId: string): CompatServiceFacility => {
  const f = p.service_facility
  if (f !== undefined) {
    return {
      service_facility_id: facilityId,
      organization_name: f.organization_name,
      address: f.address,
      ...pick(f, FACILITY_KEYS)
    }
  }
  const b = p.billing_provider
  const name = [b.organization_name, [b.first_name, b.last_name].filter(nonBlank).join(" ")].find(nonBlank)
  return {
    service_facility_id: facilityId,
    organization_name: name ?? b.npi,
    address: b.address,
    npi: b.npi
  }
}
