import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * X12 inputs of the exchange tests: the hand-written samples under test/fixtures/x12, and 999s
 * written for the batches a test made (their group control numbers are only known then).
 * Found from the repository root (also when the suite runs bundled under Node) or beside this file.
 */
const dir = (): string => {
  const fromRoot = join(process.cwd(), "test", "fixtures", "x12")
  return existsSync(fromRoot) ? fromRoot : fileURLToPath(new URL("../fixtures/x12/", import.meta.url))
}

export const x12File = (name: string): string => readFileSync(join(dir(), name), "utf8")

const pad = (s: string, n: number) => s.padEnd(n, " ")

/** The envelope our clearinghouse's answers come in. */
export const envelope = (icn: number, functional: string, version: string, set: string, body: ReadonlyArray<string>): string => {
  const isa13 = String(icn).padStart(9, "0")
  const segments = [
    `ISA*00*${pad("", 10)}*00*${pad("", 10)}*ZZ*${pad("CLEARHOUSE", 15)}*ZZ*${pad("SENDER01", 15)}*261124*0912*^*00501*${isa13}*0*T*:`,
    `GS*${functional}*CLEARHOUSE*SENDER01*20261124*0912*${icn}*X*${version}`,
    `ST*${set}*0001*${version}`,
    ...body,
    `SE*${body.length + 2}*0001`,
    `GE*1*${icn}`,
    `IEA*1*${isa13}`
  ]
  return `${segments.join("~\n")}~\n`
}

/**
 * A 999 for one batch: `sets` gives each transaction set's IK5 code (A accepted, E with errors,
 * R rejected); without sets, the group as a whole (AK9) is `group`.
 */
export const make999 = (icn: number, batchGroup: number, sets: ReadonlyArray<readonly [string, string]>, group = "A"): string => {
  const accepted = sets.filter(([, code]) => code === "A" || code === "E").length
  const ak9 = sets.length === 0 ? `AK9*${group}*1*1*${group === "R" ? 0 : 1}` : `AK9*${accepted === sets.length ? "A" : accepted === 0 ? "R" : "P"}*${sets.length}*${sets.length}*${accepted}`
  return envelope(icn, "FA", "005010X231A1", "999", [
    `AK1*HC*${batchGroup}*005010X222A1`,
    ...sets.flatMap(([control, code]) => [`AK2*837*${control}*005010X222A1`, `IK5*${code}${code === "R" ? "*5" : ""}`]),
    ak9
  ])
}

/** A 277CA naming claims by PCN, each with one STC category (and free text). */
export const make277 = (
  icn: number,
  claims: ReadonlyArray<{ readonly pcn: string; readonly category: string; readonly text?: string; readonly payerControl?: string; readonly trace?: string }>
): string => {
  const body = ["BHT*0085*08*277CA9*20261124*1015*TH", "HL*1**20*1", "NM1*AY*2*EXAMPLE CLEARINGHOUSE*****46*CH987", "HL*2*1*21*1", "NM1*41*2*ENCOUNTERD BILLING*****46*SUB123", "HL*3*2*19*1", "NM1*85*2*EXAMPLE CLINIC*****XX*1234567893"]
  claims.forEach((c, i) => {
    body.push(`HL*${4 + i}*3*PT`, `TRN*2*${c.pcn}`, `STC*${c.category}:20:PR*20261124*WQ*125.00${c.text === undefined ? "" : `********${c.text}`}`)
    if (c.payerControl !== undefined) body.push(`REF*1K*${c.payerControl}`)
    if (c.trace !== undefined) body.push(`REF*D9*${c.trace}`)
  })
  return envelope(icn, "HN", "005010X214", "277", body)
}

/** `x12 settings set` flags for the clearinghouse the fixtures answer as (sender SENDER01, CLEARHOUSE). */
// prettier-ignore
export const clearinghouseSettingsFlags: ReadonlyArray<string> = [
  "--interchange-sender-id", "SENDER01",
  "--interchange-receiver-id", "CLEARHOUSE",
  "--submitter-name", "Encounterd Billing",
  "--submitter-id", "SUB123",
  "--contact-name", "Ops Desk",
  "--contact-phone", "6155550100",
  "--receiver-name", "Example Clearinghouse",
  "--receiver-id", "CH987",
  "--usage", "T"
]

/** A claim an 835 pays (amounts in cents; adjustments as [group, reason, cents]). */
export interface Paid835Claim {
  readonly pcn: string
  readonly charge: number
  readonly paid: number
  readonly patient?: number
  readonly payerControl?: string
  readonly adjustments?: ReadonlyArray<readonly [string, string, number]>
  readonly lines?: ReadonlyArray<{
    readonly code: string
    readonly charge: number
    readonly paid: number
    readonly adjustments?: ReadonlyArray<readonly [string, string, number]>
  }>
}

/** An 835 of one payment (`check`, paid on `paidOn`, YYYYMMDD) to the claims named by PCN, processed as primary. */
export const make835 = (icn: number, check: string, paidOn: string, claims: ReadonlyArray<Paid835Claim>): string => {
  const dollars = (cents: number) => (cents / 100).toFixed(2)
  const cas = (adjustments: ReadonlyArray<readonly [string, string, number]> = []) => adjustments.map(([g, r, c]) => `CAS*${g}*${r}*${dollars(c)}`)
  const total = claims.reduce((sum, c) => sum + c.paid, 0)
  return envelope(icn, "HP", "005010X221A1", "835", [
    `BPR*I*${dollars(total)}*C*ACH*CCP*01*999999992*DA*123456789*1512345678**01*999988880*DA*98765*${paidOn}`,
    `TRN*1*${check}*1512345678`,
    "N1*PR*EXAMPLE HEALTH PLAN",
    "REF*2U*EXHP1",
    "N1*PE*EXAMPLE CLINIC*XX*1234567893",
    "LX*1",
    ...claims.flatMap((c) => [
      `CLP*${c.pcn}*1*${dollars(c.charge)}*${dollars(c.paid)}*${c.patient === undefined ? "" : dollars(c.patient)}*12*${c.payerControl ?? `PCC${c.pcn}`}*11*1`,
      ...cas(c.adjustments),
      ...(c.lines ?? []).flatMap((l) => [`SVC*HC:${l.code}*${dollars(l.charge)}*${dollars(l.paid)}**1`, ...cas(l.adjustments)])
    ])
  ])
}
