import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { validPayload } from "./payloads.js"
import { make835, make999, x12File } from "./x12-files.js"

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

export interface SeededExchange {
  readonly batchId: string
  readonly interchangeControlNumber: number
  /** The files imported, newest first: the 277CA, the 999 (the refused 835, newer, has no id in its answer). */
  readonly fileIds: ReadonlyArray<string>
}

/**
 * A clearinghouse exchange through the public API: settings, four exportable claims sent as one
 * 837P batch, then a 999 accepting it, the hand-written 277CA (which names three of them and one
 * unknown claim) and a malformed 835, which is kept as refused.
 */
export const seedExchange = async (baseUrl: string, writerKey: string, prefix = "x12"): Promise<SeededExchange> => {
  const call = async (method: string, path: string, body: unknown, contentType = "application/json") => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${writerKey}`, "content-type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body)
    })
    const parsed: unknown = await res.json()
    return { status: res.status, body: parsed }
  }
  const str = (value: unknown, key: string): string => {
    const v = typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined
    return typeof v === "string" || typeof v === "number" ? String(v) : ""
  }
  const expectStatus = (what: string, r: { status: number; body: unknown }, ...ok: ReadonlyArray<number>) => {
    if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }
  expectStatus("clearinghouse settings", await call("PUT", "/api/workspace/clearinghouse", clearinghouseSettingsInput), 200)
  const claims: Array<string> = []
  for (const [i, pcn] of ["PCN0001", "PCN0005", "PCN0007", "PCN0010"].entries()) {
    const created = expectStatus(`encounter ${pcn}`, await call("POST", "/api/encounters", exportablePayload(`${prefix}-${i + 1}`, pcn)), 202)
    const read = await fetch(`${baseUrl}/api/encounters/${str(created, "encounter_id")}`, { headers: { authorization: `Bearer ${writerKey}` } })
    claims.push(str(await read.json(), "latest_claim_id"))
  }
  const batch = expectStatus("837P batch", await call("POST", "/api/x12/837p-batches", { claim_ids: claims }), 201)
  const group = Number(str(batch, "group_control_number"))
  const files: Array<string> = []
  const x12 = "application/edi-x12"
  files.unshift(str(expectStatus("999", await call("POST", "/api/x12/inbound", make999(901, group, [["0001", "A"]]), x12), 200), "id"))
  files.unshift(str(expectStatus("277CA", await call("POST", "/api/x12/inbound", x12File("277ca-mixed.x12"), x12), 200), "id"))
  expectStatus("refused 835", await call("POST", "/api/x12/inbound", x12File("835-bad-se-count.x12"), x12), 422)
  return { batchId: str(batch, "id"), interchangeControlNumber: Number(str(batch, "interchange_control_number")), fileIds: files }
}

/**
 * Two payments to the first claim `seedExchange` sent (PCN0001, encounter `<prefix>-1`, one line of
 * $125.00; call it first): $90.00 with contractual and patient adjustments, then $15.00 more when
 * the payer reversed the contractual one, so that its encounter shows two remittances.
 */
export const seedRemittances = async (baseUrl: string, writerKey: string): Promise<void> => {
  const send = async (body: string) => {
    const res = await fetch(`${baseUrl}/api/x12/inbound`, {
      method: "POST",
      headers: { authorization: `Bearer ${writerKey}`, "content-type": "application/edi-x12" },
      body
    })
    const answer: unknown = await res.json()
    const duplicate = typeof answer === "object" && answer !== null && Reflect.get(answer, "duplicate") === true
    if (res.status !== 200 || duplicate) throw new Error(`835: ${res.status} ${JSON.stringify(answer)}`)
  }
  await send(
    make835(931, "EFT20261130001", "20261130", [
      {
        pcn: "PCN0001",
        charge: 12500,
        paid: 9000,
        patient: 2000,
        payerControl: "PLB2026112400017",
        lines: [{ code: "99213", charge: 12500, paid: 9000, adjustments: [["CO", "45", 1500], ["PR", "1", 2000]] }]
      }
    ])
  )
  await send(
    make835(932, "CHK000451", "20261214", [
      {
        pcn: "PCN0001",
        charge: 12500,
        paid: 1500,
        patient: 0,
        payerControl: "PLB2026112400017",
        lines: [{ code: "99213", charge: 12500, paid: 1500, adjustments: [["CO", "45", -1500]] }]
      }
    ])
  )
}
