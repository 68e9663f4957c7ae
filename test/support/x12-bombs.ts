import { envelope } from "./x12-files.js"

/**
 * Large X12 files for the linear-time and bounds tests: a 999 with one AK2 loop holding many IK4
 * element errors, or many AK2 loops; a 277CA naming many claims; an 835 with many CLPs. Each is a
 * well-formed interchange (counts and control numbers match), so a reader reads all of it. Each
 * repetition has the same size, so `repetitionsUnder` is exact.
 */

/** Fixed-width numbers, so every repetition has the same size. */
const seven = (i: number) => String(i).padStart(7, "0")

/** ISA … IEA around one transaction set; `body` is the segments between ST and SE. */
export const interchange = envelope

/** A 999 for batch group `group` whose one rejected set carries one IK3 and `ik4` IK4 segments. */
export const bomb999Ik4 = (icn: number, group: number, ik4: number): string =>
  interchange(icn, "FA", "005010X231A1", "999", [
    `AK1*HC*${group}*005010X222A1`,
    "AK2*837*0001*005010X222A1",
    "IK3*CLM*3*2300*8",
    ...Array.from({ length: ik4 }, (_, i) => `IK4*${(i % 9) + 1}*782*6*X${seven(i)}`),
    "IK5*R*5",
    "AK9*R*1*1*0"
  ])

/** A 999 for batch group `group` acknowledging transaction set `set` `times` times (AK2 loops). */
export const bomb999Sets = (icn: number, group: number, times: number, set = "0001"): string =>
  interchange(icn, "FA", "005010X231A1", "999", [
    `AK1*HC*${group}*005010X222A1`,
    ...Array.from({ length: times }, (_, i) => [`AK2*837*${set}*005010X222A1`, i % 2 === 0 ? "IK5*A" : "IK5*R*5"]).flat(),
    `AK9*P*${times}*${times}*${Math.ceil(times / 2)}`
  ])

/** A 277CA naming `claims` claims: `pcn(i)` (default `PCN` and 7 digits), each with one STC. */
export const bomb277 = (icn: number, claims: number, pcn: (i: number) => string = (i) => `PCN${seven(i)}`): string =>
  interchange(icn, "HN", "005010X214", "277", [
    "BHT*0085*08*277CA9*20261124*1015*TH",
    "HL*1**20*1",
    "NM1*AY*2*EXAMPLE CLEARINGHOUSE*****46*CH987",
    "HL*2*1*21*1",
    "NM1*41*2*ENCOUNTERD BILLING*****46*SUB123",
    "HL*3*2*19*1",
    "NM1*85*2*EXAMPLE CLINIC*****XX*1234567893",
    ...Array.from({ length: claims }, (_, i) => [`HL*${seven(4 + i)}*3*PT`, `TRN*2*${pcn(i)}`, "STC*A1:20:PR*20261124*WQ*125.00", `REF*1K*PAYER${seven(i)}`]).flat()
  ])

/** An 835 of one payment with `claims` CLPs: `pcn(i)` (default `PCN` and 7 digits), each paid with one line. */
export const bomb835 = (icn: number, claims: number, pcn: (i: number) => string = (i) => `PCN${seven(i)}`): string =>
  interchange(icn, "HP", "005010X221A1", "835", [
    `BPR*I*${claims}*C*ACH*CCP*01*999999992*DA*123456789*1512345678**01*999988880*DA*98765*20261130`,
    `TRN*1*EFT${icn}*1512345678`,
    "N1*PR*EXAMPLE HEALTH PLAN",
    "REF*2U*EXHP1",
    "N1*PE*EXAMPLE CLINIC*XX*1234567893",
    "LX*1",
    ...Array.from({ length: claims }, (_, i) => [`CLP*${pcn(i)}*1*2*1**12*PAYER${seven(i)}*11*1`, "SVC*HC:99213*2*1**1", "CAS*CO*45*1"]).flat()
  ])

/** A 277CA whose one claim carries `statuses` STC segments. */
export const bomb277Statuses = (icn: number, statuses: number, pcn = "PCN0000001"): string =>
  interchange(icn, "HN", "005010X214", "277", [
    "BHT*0085*08*277CA9*20261124*1015*TH",
    "HL*1**20*1",
    "HL*2*1*21*1",
    "HL*3*2*19*1",
    "HL*4*3*PT",
    `TRN*2*${pcn}`,
    ...Array.from({ length: statuses }, () => "STC*A1:20:PR*20261124*WQ*125.00")
  ])

/** An 835 whose one claim carries `lines` service lines, each with a CAS. */
export const bomb835Lines = (icn: number, lines: number, pcn = "PCN0000001"): string =>
  interchange(icn, "HP", "005010X221A1", "835", [
    "BPR*I*1*C*ACH*CCP*01*999999992*DA*123456789*1512345678**01*999988880*DA*98765*20261130",
    `TRN*1*EFT${icn}*1512345678`,
    "N1*PR*EXAMPLE HEALTH PLAN",
    `CLP*${pcn}*1*2*1**12*PAYER*11*1`,
    ...Array.from({ length: lines }, () => ["SVC*HC:99213*2*1**1", "CAS*CO*45*1"]).flat()
  ])

/** A 999 whose one segment holds `breaks` line breaks between two characters of an element. */
export const bombLineBreaks = (icn: number, breaks: number): string =>
  interchange(icn, "FA", "005010X231A1", "999", ["AK1*HC*1*005010X222A1", `CTX*a${"\r\n".repeat(breaks)}b`, "AK9*A*0*0*0"])

/** As many repetitions as keep the file under `bytes`, by the size of one repetition. */
export const repetitionsUnder = (bytes: number, make: (n: number) => string): number => {
  const one = make(1).length
  const two = make(2).length
  return Math.floor((bytes - one) / (two - one))
}

/** An import's answer and how long it took. */
export interface ImportAnswer {
  readonly status: number
  readonly body: any
  readonly ms: number
}

export interface UnderLoad {
  readonly answers: ReadonlyArray<ImportAnswer>
  /** Other clients' latencies (ms) of requests sent while an import was in flight. */
  readonly latencies: ReadonlyArray<number>
  readonly p99: number
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/**
 * Imports the files `next` makes (a fresh ISA13 each, so none is a duplicate), one after another
 * (at least 3 times, until 200 other requests were measured or 10 were sent), while two other
 * clients poll `/healthz` back to back; answers the imports and the other clients' latencies of
 * requests sent while an import was in flight (the convention of test/binary/input-bounds.test.ts).
 */
export const importsUnderLoad = async (base: string, key: string, next: () => string): Promise<UnderLoad> => {
  let running = true
  let inFlight = false
  const latencies: Array<number> = []
  const poll = async () => {
    while (running) {
      const sentDuring = inFlight
      const started = performance.now()
      const res = await fetch(`${base}/healthz`)
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`)
      if (sentDuring) latencies.push(performance.now() - started)
    }
  }
  const pollers = [poll(), poll()]
  const answers: Array<ImportAnswer> = []
  try {
    for (let i = 0; i < 10 && (i < 3 || latencies.length < 200); i++) {
      const body = next()
      inFlight = true
      const started = performance.now()
      const res = await fetch(`${base}/api/x12/inbound`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/edi-x12" },
        body
      })
      const text = await res.text()
      answers.push({ status: res.status, body: JSON.parse(text), ms: performance.now() - started })
      inFlight = false
      await Bun.sleep(20)
    }
  } finally {
    running = false
    await Promise.all(pollers)
  }
  return { answers, latencies, p99: percentile(latencies, 99) }
}

/**
 * What a test asserts of imports under load: the answers' statuses, and that other clients were
 * answered meanwhile (at least 100 requests during the imports). How fast is the bench's question
 * (`bench/x12-bombs.ts`: each answer within 2 s, other clients' p99 within 250 ms), not a test's.
 */
export const boundedUnderLoad = (r: UnderLoad) => ({
  statuses: [...new Set(r.answers.map((a) => a.status))],
  measured: r.latencies.length >= 100 ? "at least 100" : r.latencies.length
})

/** One line on what `importsUnderLoad` measured, for the test's output. */
export const reportUnderLoad = (label: string, bytes: number, r: UnderLoad) =>
  console.log(
    `${label}: ${(bytes / 1024 / 1024).toFixed(2)} MiB; imported ${r.answers.length} times in ${r.answers.map((a) => a.ms.toFixed(0)).join(", ")} ms; ` +
      `/healthz p99 ${r.p99.toFixed(1)} ms, max ${Math.max(...r.latencies).toFixed(1)} ms over ${r.latencies.length} requests`
  )
