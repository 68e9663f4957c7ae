import { Schema } from "effect"
import { AddressLongZip, AddressShortZip, InsuranceCard, Patient, ServiceFacility, Subscriber } from "../../lib/domain/encounter-input.js"
import { DateString, NonEmpty, Npi, oneOf, opt, Str } from "../../lib/domain/primitives.js"
import * as V from "../../lib/domain/vocab.js"
import { CARD_KEYS, FACILITY_KEYS, SUBSCRIBER_KEYS } from "./parts.js"

/**
 * The schemas of the people and places in a compat (vendor v4) Encounter response, for the API
 * description. They describe what `parts.ts` builds, key for key; create-side fields are reused
 * where the response carries them unchanged.
 */

export const LongAddress = AddressLongZip.annotations({ identifier: "AddressWithPlusFour" })
export const ShortAddress = AddressShortZip.annotations({ identifier: "Address" })
export const Id = Schema.String.annotations({ description: "A UUID derived from the encounter id: the same on every read" })
/** A list the service keeps empty (it tracks no payments, tags, remittances or payer directory). */
export const AlwaysEmpty = Schema.Tuple().annotations({ description: "Always empty in this service" })

export const PhoneNumber = Schema.Struct({ number: NonEmpty, type: oneOf("phone type", V.PhoneNumberType) }).annotations({
  identifier: "PhoneNumber"
})

export const CompatProvider = Schema.Struct({
  provider_id: Id,
  npi: Npi,
  address: LongAddress.annotations({ description: "The provider's own, else the billing provider's" }),
  tax_id: opt(Str),
  taxonomy_code: opt(Str),
  qualifier: opt(oneOf("qualifier code", V.QualifierCode)),
  provider_commercial_license_type: opt(oneOf("license type", V.BillingProviderCommercialLicenseType)),
  secondary_identification: opt(
    Schema.Struct({
      reference_identification: NonEmpty,
      reference_identification_qualifier: opt(oneOf("qualifier", V.ProviderSecondaryIdQualifier))
    })
  ),
  first_name: opt(Str),
  last_name: opt(Str),
  organization_name: opt(Str)
}).annotations({ identifier: "CompatProvider", description: "The vendor's EncounterProvider" })

export const CompatAdditionalProvider = Schema.Struct({
  provider_id: Id,
  first_name: NonEmpty,
  last_name: NonEmpty,
  npi: opt(Npi),
  taxonomy_code: opt(Str),
  address: opt(LongAddress),
  license_type: opt(oneOf("license type", V.LicenseType))
}).annotations({ identifier: "CompatAdditionalProvider", description: "The vendor's EncounterAdditionalProvider (treating provider)" })

const consents = { phone_consent: Schema.Boolean, email_consent: Schema.Boolean, auto_charge_consent: Schema.Boolean }

export const CompatPatient = Schema.Struct({
  individual_id: Id,
  ...Patient.pick("external_id", "first_name", "last_name", "gender", "date_of_birth", "email").fields,
  address: ShortAddress,
  phone_numbers: Schema.Array(PhoneNumber),
  ...consents,
  non_insurance_payers: AlwaysEmpty,
  non_insurance_payers_info: AlwaysEmpty
}).annotations({ identifier: "CompatPatient" })

export const CompatInsuranceCard = Schema.Struct({
  insurance_card_id: Id,
  ...InsuranceCard.pick("member_id", "payer_name", "payer_id", ...CARD_KEYS).fields,
  payer_address: opt(LongAddress)
}).annotations({ identifier: "CompatInsuranceCard" })

export const CompatSubscriber = Schema.Struct({
  individual_id: Id,
  ...Subscriber.pick("first_name", "last_name", "gender", "patient_relationship_to_subscriber_code", ...SUBSCRIBER_KEYS).fields,
  address: opt(ShortAddress),
  insurance_card: CompatInsuranceCard
}).annotations({ identifier: "CompatSubscriber" })

export const CompatGuarantor = Schema.Struct({
  guarantor_id: Id,
  ...Patient.pick("first_name", "last_name", "external_id", "email").fields,
  address: ShortAddress,
  date_of_birth: opt(DateString),
  phone_numbers: Schema.Array(PhoneNumber),
  ...consents
}).annotations({ identifier: "CompatGuarantor" })

export const CompatServiceFacility = Schema.Struct({
  service_facility_id: Id,
  ...ServiceFacility.pick("organization_name", ...FACILITY_KEYS).fields,
  address: LongAddress
}).annotations({
  identifier: "CompatServiceFacility",
  description: "The facility sent, else the billing provider standing in (the response requires one)"
})
