import { validPayload } from "./payloads.js"

const people = [
  ["Avery", "Testpatient"],
  ["Jordan", "Samplesmith"],
  ["Riley", "Examplar"],
  ["Morgan", "Fixtureton"],
  ["Casey", "Demoworth"],
  ["Taylor", "Mockford"]
] as const

const procedures = [
  ["99213", 12500],
  ["99214", 18500],
  ["87880", 2800],
  ["36415", 1200],
  ["93000", 4600]
] as const

/** A payload for seeded encounter `i`: its own patient, 1 to 3 service lines, a date of service. */
export const seededPayload = (externalId: string, i: number): Record<string, unknown> => {
  const [first, last] = people[i % people.length]!
  const day = `2026-10-${String((i % 27) + 1).padStart(2, "0")}`
  const lines = Array.from({ length: (i % 3) + 1 }, (_, n) => {
    const [code, cents] = procedures[(i + n) % procedures.length]!
    return { procedure_code: code, quantity: "1", units: "UN", diagnosis_pointers: [0], charge_amount_cents: cents, date_of_service: day }
  })
  const base = validPayload(externalId)
  return {
    ...base,
    patient: { ...(typeof base.patient === "object" ? base.patient : {}), external_id: `pt-${1000 + i}`, first_name: first, last_name: last },
    diagnoses: [{ code_type: "ABK", code: "J01.90" }, { code_type: "ABF", code: "R05.9" }],
    service_lines: lines
  }
}

/** Sends encounters (and, when asked, a refused request) through the public API, as an integration would. */
export const seedEncounters = async (baseUrl: string, key: string, count: number, prefix = "enc"): Promise<ReadonlyArray<string>> => {
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const externalId = `${prefix}-${1001 + i}`
    const res = await fetch(`${baseUrl}/api/encounters`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(seededPayload(externalId, i))
    })
    if (res.status !== 202 && res.status !== 200) throw new Error(`seeding ${externalId}: ${res.status} ${await res.text()}`)
    ids.push(externalId)
  }
  return ids
}

/** A create request the service refuses (422), so that the intake log has a rejected entry. */
export const sendRejected = async (baseUrl: string, key: string, externalId: string) => {
  const bad = { ...seededPayload(externalId, 0), billing_provider: { organization_name: "Example Clinic", npi: "12", tax_id: "x" } }
  const res = await fetch(`${baseUrl}/api/encounters`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(bad)
  })
  if (res.status !== 422) throw new Error(`expected a refusal, got ${res.status}`)
}
