import { CandidApi, serialization } from "candidhealth"

/**
 * Typed vendor `EncounterCreate` objects (camelCase, the SDK's own TypeScript types) for the
 * compat round-trip tests: a seeded generator, so every run sends the same varied payloads, and
 * every value obeys this service's stricter formats (valid NPIs, 9-digit tax ids, real dates).
 */

export type Create = CandidApi.encounters.v4.EncounterCreate

/** mulberry32: a small deterministic PRNG. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(0, xs.length - 1)]!
  const digits = (n: number): string => Array.from({ length: n }, () => String(int(0, 9))).join("")
  /** `n` distinct elements in random order. */
  const sample = <A>(xs: ReadonlyArray<A>, n: number): Array<A> => {
    const pool = [...xs]
    const out: Array<A> = []
    while (out.length < n && pool.length > 0) out.push(pool.splice(int(0, pool.length - 1), 1)[0]!)
    return out
  }
  return { next, int, pick, digits, sample, bool: (p = 0.5) => next() < p }
}
export type Rng = ReturnType<typeof prng>

/** The NPI check digit: Luhn over "80840" followed by the NPI's first nine digits. */
export const npiCheckDigit = (firstNine: string): number => {
  if (!/^\d{9}$/.test(firstNine)) throw new Error(`not nine digits: ${firstNine}`)
  const payload = `80840${firstNine}`
  let sum = 0
  for (let i = 0; i < payload.length; i++) {
    // Rightmost payload digit first: it is doubled, because the check digit will follow it.
    let d = Number(payload[payload.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return (10 - (sum % 10)) % 10
}

export const makeNpi = (rng: Rng): string => {
  const firstNine = `${rng.pick(["1", "2"])}${rng.digits(8)}`
  return `${firstNine}${npiCheckDigit(firstNine)}`
}

/** A real calendar day between the given years. */
export const makeDate = (rng: Rng, fromYear: number, toYear: number): string => {
  const y = rng.int(fromYear, toYear)
  const m = rng.int(1, 12)
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate()
  const d = rng.int(1, days)
  return `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`
}

const FIRST = ["Avery", "Quinn", "Rowan", "Sasha", "Jordan", "Morgan", "Emery", "Kai", "Noa", "Reese"] as const
const LAST = ["Testpatient", "Fixture", "Sample", "Example", "Mockwell", "Placeholder", "Demo"] as const
const CITIES = ["Boise", "Austin", "Dayton", "Fresno", "Salem", "Tulsa", "Reno"] as const
const STREETS = ["Example St", "Fixture Ave", "Sample Rd", "Test Blvd", "Demo Ln"] as const
const ICD10 = ["J01.90", "E11.9", "I10", "M54.50", "Z00.00", "R05.9", "K21.9", "F41.1", "J45.909", "N39.0", "E78.5", "L30.9"] as const
const PROCEDURES = ["99213", "99214", "99203", "97110", "97140", "90837", "36415", "80053", "93000"] as const
const QUANTITIES = ["1", "0.5", "2"] as const
const PAYERS = [["Example Health", "EXH01"], ["Sample Mutual", "SMP22"], ["Fixture Care", "FXC07"]] as const
const RELATIONSHIPS: ReadonlyArray<CandidApi.PatientRelationshipToInsuredCodeAll> = ["18", "01", "19", "G8"]

export const PLACES_OF_SERVICE: ReadonlyArray<CandidApi.FacilityTypeCode> = Object.values(CandidApi.FacilityTypeCode)
export const MODIFIERS: ReadonlyArray<CandidApi.ProcedureModifier> = Object.values(CandidApi.ProcedureModifier)
const STATES: ReadonlyArray<CandidApi.State> = Object.values(CandidApi.State)
const GENDERS: ReadonlyArray<CandidApi.Gender> = Object.values(CandidApi.Gender)

const shortAddress = (rng: Rng): CandidApi.StreetAddressShortZip => ({
  address1: `${rng.int(1, 9999)} ${rng.pick(STREETS)}`,
  ...(rng.bool(0.3) ? { address2: `Apt ${rng.int(1, 99)}` } : {}),
  city: rng.pick(CITIES),
  state: rng.pick(STATES),
  zipCode: rng.digits(5),
  ...(rng.bool() ? { zipPlusFourCode: rng.digits(4) } : {})
})

const longAddress = (rng: Rng): CandidApi.StreetAddressLongZip => ({
  address1: `${rng.int(1, 9999)} ${rng.pick(STREETS)}`,
  city: rng.pick(CITIES),
  state: rng.pick(STATES),
  zipCode: rng.digits(5),
  zipPlusFourCode: rng.digits(4)
})

const subscriber = (rng: Rng, tag: string): CandidApi.individual.SubscriberCreate => {
  const [payerName, payerId] = rng.pick(PAYERS)
  return {
    firstName: rng.pick(FIRST),
    lastName: rng.pick(LAST),
    gender: rng.pick(GENDERS),
    patientRelationshipToSubscriberCode: rng.pick(RELATIONSHIPS),
    ...(rng.bool() ? { dateOfBirth: makeDate(rng, 1940, 2005), address: shortAddress(rng) } : {}),
    insuranceCard: {
      memberId: `${tag}-${rng.digits(8)}`,
      payerName,
      payerId,
      ...(rng.bool() ? { groupNumber: `GRP${rng.digits(5)}`, planType: rng.pick(["CI", "HM", "12"] as const) } : {})
    }
  }
}

const provider = (rng: Rng) => ({ npi: makeNpi(rng), firstName: rng.pick(FIRST), lastName: rng.pick(LAST) })

/** What a case is meant to cover, fixed by its index so that every feature appears. */
export interface Features {
  readonly insurance: boolean
  readonly billable: boolean
  readonly lines: boolean
  readonly secondary: boolean
  readonly facility: boolean
  readonly referring: boolean
  readonly supervising: boolean
}

export const featuresOf = (i: number): Features => {
  const insurance = i % 3 !== 2
  return {
    insurance,
    billable: i % 4 !== 3,
    lines: i % 5 !== 4,
    secondary: insurance && i % 2 === 0,
    facility: i % 3 === 0,
    referring: i % 4 === 1 || i % 7 === 0,
    supervising: i % 5 === 2 || i % 6 === 5
  }
}

export const makeCreate = (rng: Rng, i: number, runTag: string): Create => {
  const f = featuresOf(i)
  const diagnosisCount = rng.int(1, 6)
  const diagnoses: Array<CandidApi.DiagnosisCreate> = rng.sample(ICD10, diagnosisCount).map((code, n) => ({
    codeType: n === 0 ? "ABK" : "ABF",
    code,
    ...(rng.bool(0.2) ? { name: `diagnosis ${code}` } : {})
  }))
  const lineCount = f.lines ? rng.int(1, 4) : 0
  const serviceLines: Array<CandidApi.serviceLines.v2.ServiceLineCreate> = Array.from({ length: lineCount }, () => {
    const pointerCount = rng.int(1, Math.min(4, diagnosisCount))
    const modifiers = rng.sample(MODIFIERS, rng.int(0, 3))
    return {
      procedureCode: rng.pick(PROCEDURES),
      quantity: CandidApi.Decimal(rng.pick(QUANTITIES)),
      units: rng.pick(["UN", "MJ"] as const),
      diagnosisPointers: rng.sample(diagnoses.map((_, n) => n), pointerCount),
      ...(modifiers.length > 0 ? { modifiers } : {}),
      ...(rng.bool(0.8) ? { chargeAmountCents: rng.int(1, 500) * 500 } : {})
    }
  })
  const billingName = rng.bool()
    ? { organizationName: `${rng.pick(LAST)} Clinic` }
    : { firstName: rng.pick(FIRST), lastName: rng.pick(LAST) }
  return {
    externalId: CandidApi.EncounterExternalId(`sdk-rt-${runTag}-${String(i).padStart(3, "0")}`),
    patientAuthorizedRelease: rng.bool(0.8),
    benefitsAssignedToProvider: rng.bool(0.8),
    providerAcceptsAssignment: rng.bool(0.8),
    billableStatus: f.billable ? "BILLABLE" : "NOT_BILLABLE",
    responsibleParty: f.insurance ? "INSURANCE_PAY" : "SELF_PAY",
    placeOfServiceCode: rng.pick(PLACES_OF_SERVICE),
    ...(rng.bool(0.7) ? { dateOfService: makeDate(rng, 2023, 2025) } : {}),
    patient: {
      externalId: `pt-${runTag}-${i}`,
      firstName: rng.pick(FIRST),
      lastName: rng.pick(LAST),
      gender: rng.pick(GENDERS),
      dateOfBirth: makeDate(rng, 1930, 2020),
      address: shortAddress(rng)
    },
    billingProvider: { ...billingName, npi: makeNpi(rng), taxId: rng.digits(9), address: longAddress(rng) },
    renderingProvider: provider(rng),
    diagnoses,
    ...(lineCount > 0 ? { serviceLines } : {}),
    ...(f.insurance ? { subscriberPrimary: subscriber(rng, "P") } : {}),
    ...(f.secondary ? { subscriberSecondary: subscriber(rng, "S") } : {}),
    ...(f.facility
      ? { serviceFacility: { organizationName: `${rng.pick(CITIES)} Outpatient Center`, npi: makeNpi(rng), address: longAddress(rng) } }
      : {}),
    ...(f.referring ? { referringProvider: provider(rng) } : {}),
    ...(f.supervising ? { supervisingProvider: provider(rng) } : {})
  }
}

/** `count` cases from one seed. */
export const makeCreates = (seed: number, count: number, runTag: string): Array<Create> => {
  const rng = prng(seed)
  return Array.from({ length: count }, (_, i) => makeCreate(rng, i, runTag))
}

/** The wire body, exactly as the SDK serializes it (snake_case, undefined optionals left out). */
export const toWire = (c: Create): string =>
  JSON.stringify(serialization.encounters.v4.EncounterCreate.jsonOrThrow(c, { omitUndefined: true }))

export const postEncounter = async (url: string, key: string, body: string) => {
  const res = await fetch(`${url}/api/encounters`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

export const getJson = async (url: string, key: string, path: string) => {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })
  return { status: res.status, body: (await res.json()) as unknown }
}
