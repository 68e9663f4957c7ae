import { envelope } from "./x12-files.js"

/** One claim of `make835`: amounts in dollars, as the 835 writes them; lines default to one 99213. */
export interface Remit835Claim {
  readonly pcn: string
  readonly status?: string
  readonly charge: number
  readonly paid: number
  readonly patientResponsibility?: number
  readonly payerControl: string
  /** Claim-level CAS triples (group, reason, amount). */
  readonly adjustments?: ReadonlyArray<readonly [string, string, number]>
  readonly lines?: ReadonlyArray<{
    readonly procedure: string
    readonly charge: number
    readonly paid: number
    readonly adjustments: ReadonlyArray<readonly [string, string, number]>
  }>
}

const cas = ([group, reason, amount]: readonly [string, string, number]) => `CAS*${group}*${reason}*${amount}`

/** An 835 paying (or denying) claims named by PCN, dated 2026-11-30. */
export const make835 = (icn: number, claims: ReadonlyArray<Remit835Claim>): string => {
  const total = claims.reduce((sum, c) => sum + c.paid, 0)
  return envelope(icn, "HP", "005010X221A1", "835", [
    `BPR*I*${total}*C*ACH*CCP*01*999999992*DA*123456789*1512345678**01*999988880*DA*98765*20261130`,
    `TRN*1*EFT${icn}*1512345678`,
    "N1*PR*EXAMPLE HEALTH",
    "N1*PE*EXAMPLE CLINIC*XX*1234567893",
    "LX*1",
    ...claims.flatMap((c) => [
      `CLP*${c.pcn}*${c.status ?? "1"}*${c.charge}*${c.paid}*${c.patientResponsibility ?? ""}*12*${c.payerControl}*11*1`,
      ...(c.adjustments ?? []).map(cas),
      "NM1*QC*1*TESTPATIENT*AVERY****MI*M-1",
      ...(c.lines ?? []).flatMap((l) => [`SVC*HC:${l.procedure}*${l.charge}*${l.paid}**1`, "DTM*472*20261001", ...l.adjustments.map(cas)])
    ])
  ])
}
