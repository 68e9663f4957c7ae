import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { serialization } from "candidhealth"
import { Effect, Layer } from "effect"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import type { EncounterWithClaim } from "../../lib/domain/encounter.js"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { Clock, Ids } from "../../lib/ports/clock.js"
import { createEncounter } from "../../lib/rules/create-encounter.js"
import { getEncounter } from "../../lib/rules/read-encounters.js"
import { type CompatEncounter, toCompatEncounter } from "../../server/compat/encounter.js"

const ws = WorkspaceId.make("0190a1b2-0000-7000-8000-000000000001")
const BASE_URL = "http://localhost:8080/"
const VendorEncounter = serialization.encounters.v4.Encounter

/** Statuses of this service that the vendor's ClaimStatus lacks. */
const NON_VENDOR_STATUSES = new Set(["draft", "submission_bounced"])

/** Intake through the library, then the stored row: one memory store for both steps. */
const intakeAndRead = (payload: unknown): Promise<EncounterWithClaim> =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const created = yield* createEncounter(ws, payload)
        return yield* getEncounter(ws, created.encounter_id)
      }),
      Layer.mergeAll(MemoryStorage.layer, Clock.live, Ids.live)
    )
  )

type Problems = ReadonlyArray<string>
const problems = (r: ReturnType<typeof VendorEncounter.parse>): Problems =>
  r.ok ? [] : r.errors.map((e) => `${e.path.join(".")}: ${e.message}`)

/**
 * Strict vendor parse; enum leniency only when the claim status is one the vendor lacks. Then,
 * to make sure that leniency hides nothing else, the same JSON with a vendor status must parse
 * fully strictly.
 */
const vendorProblems = (json: CompatEncounter): Problems => {
  const status = json.claims[0]?.status ?? ""
  const lenient = NON_VENDOR_STATUSES.has(status)
  const first = problems(VendorEncounter.parse(json, lenient ? { allowUnrecognizedEnumValues: true } : {}))
  const withVendorStatus = { ...json, claims: json.claims.map((c) => ({ ...c, status: "biller_received" })) }
  return [...first, ...problems(VendorEncounter.parse(withVendorStatus))]
}

/** Paths of every `null` or `undefined` value: the response must carry neither. */
const absentValues = (u: unknown, path = "$"): Array<string> => {
  if (u === null || u === undefined) return [path]
  if (Array.isArray(u)) return u.flatMap((v, i) => absentValues(v, `${path}[${i}]`))
  if (typeof u === "object") return Object.entries(u).flatMap(([k, v]) => absentValues(v, `${path}.${k}`))
  return []
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const fixturesDir = new URL("../fixtures/valid/", import.meta.url)
const fixtureNames = readdirSync(fixturesDir).filter((n) => /^shr-.*\.json$/.test(n)).sort()

const readFixture = (name: string): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(readFileSync(new URL(name, fixturesDir), "utf8"))
  if (!isRecord(parsed)) throw new Error(`${name}: not a JSON object`)
  return parsed
}

describe("compat Encounter shape", () => {
  test("the fixtures directory is found", () => {
    expect(fixtureNames.length).toBeGreaterThan(0)
  })

  for (const name of fixtureNames) {
    test(`${name} maps to a vendor Encounter that parses strictly`, async () => {
      const row = await intakeAndRead(readFixture(name))
      const p = row.encounter.payload
      const c = toCompatEncounter(row, BASE_URL)

      expect(vendorProblems(c)).toEqual([])
      expect(absentValues(c)).toEqual([])
      expect(c.claims[0]?.status).toBe(p.billable_status === "NOT_BILLABLE" ? "not_billable" : "draft")

      // What was sent comes back.
      expect(c.encounter_id).toBe(row.encounter.id)
      expect(c.url).toBe(`http://localhost:8080/api/encounters/${row.encounter.id}`)
      expect(c.external_id).toBe(p.external_id)
      expect(c.patient_control_number).toBe(row.claim.patient_control_number)
      expect(c.patient.first_name).toBe(p.patient.first_name)
      expect(c.patient.last_name).toBe(p.patient.last_name)
      expect(c.patient.date_of_birth).toBe(p.patient.date_of_birth)
      expect(c.patient.address).toEqual(p.patient.address)
      expect(c.billing_provider.npi).toBe(p.billing_provider.npi)
      expect(c.diagnoses.map((d) => d.code)).toEqual(p.diagnoses.map((d) => d.code))
      expect(c.place_of_service_code).toBe(p.place_of_service_code)

      const lines = p.service_lines ?? []
      const out = c.claims[0]?.service_lines ?? []
      expect(out.length).toBe(lines.length)
      lines.forEach((l, i) => {
        const o = out[i]!
        expect(o.procedure_code).toBe(l.procedure_code)
        expect(o.quantity).toBe(l.quantity)
        expect(o.modifiers).toEqual(l.modifiers)
        expect(o.charge_amount_cents).toBe(l.charge_amount_cents)
        expect(o.claim_id).toBe(row.claim.id)
        expect("diagnosis_pointers" in o).toBe(false)
        const ids = [o.diagnosis_id_zero, o.diagnosis_id_one, o.diagnosis_id_two, o.diagnosis_id_three]
        l.diagnosis_pointers.forEach((ptr, n) => expect(ids[n]).toBe(c.diagnoses[ptr]!.diagnosis_id))
        expect(ids.slice(l.diagnosis_pointers.length).every((x) => x === undefined)).toBe(true)
        expect(o.date_of_service).toBe(l.date_of_service ?? p.date_of_service ?? row.encounter.created_at.slice(0, 10))
        expect(o.date_of_service_range.start_date).toBe(o.date_of_service)
      })

      if (p.subscriber_primary !== undefined) {
        expect(c.subscriber_primary?.insurance_card.member_id).toBe(p.subscriber_primary.insurance_card.member_id)
      }
      if (p.subscriber_secondary !== undefined) {
        expect(c.subscriber_secondary?.insurance_card.member_id).toBe(p.subscriber_secondary.insurance_card.member_id)
      }

      // Stable: mapping the same row again gives the same JSON, generated ids included.
      expect(toCompatEncounter(row, BASE_URL)).toStrictEqual(c)
    })
  }

  test("a minimal SELF_PAY encounter without lines or facility", async () => {
    for (const billable_status of ["BILLABLE", "NOT_BILLABLE"] as const) {
      const row = await intakeAndRead({
        external_id: `enc-min-${billable_status}`,
        patient_authorized_release: true,
        benefits_assigned_to_provider: true,
        provider_accepts_assignment: true,
        billable_status,
        responsible_party: "SELF_PAY",
        place_of_service_code: "11",
        patient: {
          external_id: "pt-min-1",
          first_name: "Avery",
          last_name: "Testpatient",
          gender: "unknown",
          date_of_birth: "1984-03-27",
          address: { address1: "100 Example St", city: "Boise", state: "ID", zip_code: "83702" }
        },
        billing_provider: {
          first_name: "Kai",
          last_name: "Pseudonimo",
          npi: "2545593404",
          tax_id: "540433373",
          address: { address1: "200 Fixture Ave", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "0000" }
        },
        rendering_provider: { npi: "2396251094" },
        diagnoses: [{ code_type: "ABK", code: "J01.90" }]
      })
      const c = toCompatEncounter(row, "http://localhost:8080")
      expect(vendorProblems(c)).toEqual([])
      expect(absentValues(c)).toEqual([])
      expect(c.claims).toHaveLength(1)
      expect(c.claims[0]?.service_lines).toEqual([])
      expect(c.patient.phone_numbers).toEqual([])
      expect(c.patient.phone_consent).toBe(false)
      // Synthesized from the billing provider: no organization name, so the person's name.
      expect(c.service_facility.organization_name).toBe("Kai Pseudonimo")
      expect(c.service_facility.address).toEqual(row.encounter.payload.billing_provider.address)
      expect(c.service_facility.npi).toBe("2545593404")
      expect(c.rendering_provider.address).toEqual(row.encounter.payload.billing_provider.address)
      expect(c.date_of_service).toBeUndefined()
      expect(toCompatEncounter(row, "http://localhost:8080")).toStrictEqual(c)
    }
  })

  test("every optional part: providers, guarantor, notes, create-only keys dropped", async () => {
    const base = readFixture("shr-001-ophthalmology.json")
    const address = { address1: "1 Referral Rd", city: "Nashville", state: "TN", zip_code: "37203", zip_plus_four_code: "0001" } as const
    const row = await intakeAndRead({
      ...base,
      external_id: "enc-compat-everything",
      date_of_service: "2026-01-15",
      end_date_of_service: "2026-01-16",
      patient_control_number: "PCNCOMPAT1",
      tag_ids: ["tag-1"],
      metadata: { source_system: "test" },
      billing_provider: {
        organization_name: "Maplewood Example Ophthalmology Group",
        npi: "1183647753",
        tax_id: "918971720",
        provider_commercial_license_type: "F",
        secondary_identification: { reference_identification: "X1", reference_identification_qualifier: "G2" },
        address: { address1: "611 Fixture Ave", city: "Nashville", state: "TN", zip_code: "37203", zip_plus_four_code: "6370" }
      },
      referring_provider: {
        npi: "1413757182",
        first_name: "Ref",
        last_name: "Erring",
        secondary_identification: { reference_identification: "R1", reference_identification_qualifier: "0B" }
      },
      initial_referring_provider: { npi: "1413757182", qualifier: "DN", address },
      supervising_provider: { npi: "1413757182", organization_name: "Supervisors Inc" },
      treating_provider: { first_name: "Tre", last_name: "Ating", license_type: "MD" },
      guarantor: {
        first_name: "Gus",
        last_name: "Arantor",
        external_id: "g-1",
        address: { address1: "5 Payer St", city: "Nashville", state: "TN", zip_code: "37203" }
      },
      billing_notes: [{ text: "first" }, { text: "second" }],
      subscriber_secondary: {
        first_name: "Elio",
        last_name: "Exampleton",
        gender: "female",
        patient_relationship_to_subscriber_code: "18",
        insurance_card: {
          member_id: "SEC1",
          payer_name: "Second Plan",
          payer_id: "SEC01",
          emr_payer_crosswalk: "HEALTHIE",
          payer_plan_group_name: "Group A"
        }
      },
      patient: {
        ...(isRecord(base.patient) ? base.patient : {}),
        non_insurance_payers: ["nip-1"],
        non_insurance_payers_info: [{ non_insurance_payer_id: "nip-1" }]
      },
      service_lines: [
        {
          procedure_code: "92014",
          quantity: "1.5",
          units: "UN",
          modifiers: ["25", "59"],
          diagnosis_pointers: [1, 0],
          ordering_provider: { npi: "1413757182", first_name: "Or", last_name: "Dering" }
        }
      ]
    })
    const p = row.encounter.payload
    const c = toCompatEncounter(row, BASE_URL)
    expect(vendorProblems(c)).toEqual([])
    expect(absentValues(c)).toEqual([])
    // A JSON object to HTTP code that takes `Record<string, unknown>` (checked by tsc).
    const asRecord: Record<string, unknown> = c
    expect(Object.keys(asRecord)).toContain("encounter_id")

    expect(c.patient_control_number).toBe("PCNCOMPAT1")
    for (const key of ["tag_ids", "metadata", "external_claim_submission", "service_facility_id"]) {
      expect(key in c).toBe(false)
    }
    const line = c.claims[0]!.service_lines[0]!
    expect(line.quantity).toBe("1.5")
    expect(line.diagnosis_id_zero).toBe(c.diagnoses[1]!.diagnosis_id)
    expect(line.diagnosis_id_one).toBe(c.diagnoses[0]!.diagnosis_id)
    // No line date: the encounter's range.
    expect(line.date_of_service_range).toEqual({ start_date: "2026-01-15", end_date: "2026-01-16" })
    expect(line.ordering_provider?.address).toEqual(p.billing_provider.address)
    expect(c.referring_provider?.address).toEqual(p.billing_provider.address)
    expect(c.initial_referring_provider?.address).toEqual(address)
    expect(c.initial_referring_provider?.qualifier).toBe("DN")
    expect(c.billing_provider.provider_commercial_license_type).toBe("F")
    expect(c.treating_provider?.first_name).toBe("Tre")
    expect(c.guarantor?.phone_numbers).toEqual([])
    expect(c.billing_notes?.map((n) => n.text)).toEqual(["first", "second"])
    expect(new Set(c.billing_notes?.map((n) => n.billing_note_id)).size).toBe(2)
    expect(c.clinical_notes[0]?.notes).toEqual(["Synthetic note for eye exam."])
    const card = c.subscriber_secondary?.insurance_card
    expect(card?.member_id).toBe("SEC1")
    expect(card !== undefined && "emr_payer_crosswalk" in card).toBe(false)
    expect(card !== undefined && "payer_plan_group_name" in card).toBe(false)
    expect(c.patient.non_insurance_payers).toEqual([])

    // Generated ids are distinct UUIDs and survive a second mapping unchanged.
    const ids = [
      c.patient.individual_id,
      c.billing_provider.provider_id,
      c.rendering_provider.provider_id,
      c.referring_provider?.provider_id,
      c.service_facility.service_facility_id,
      c.subscriber_primary?.individual_id,
      c.subscriber_primary?.insurance_card.insurance_card_id,
      c.subscriber_secondary?.insurance_card.insurance_card_id,
      c.guarantor?.guarantor_id,
      line.service_line_id,
      ...c.diagnoses.map((d) => d.diagnosis_id)
    ]
    expect(ids.every((x) => typeof x === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(x)))
      .toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(toCompatEncounter(row, BASE_URL)).toStrictEqual(c)
  })

  test("claim statuses outside the vendor's list pass only with enum leniency", async () => {
    const row = await intakeAndRead({ ...readFixture("shr-002-allergy-injections.json"), external_id: "enc-bounced" })
    const c = toCompatEncounter({ ...row, claim: { ...row.claim, status: "submission_bounced" } }, BASE_URL)
    expect(VendorEncounter.parse(c).ok).toBe(false)
    expect(vendorProblems(c)).toEqual([])
  })
})
