import { envelope } from "./x12-files.js"

/** One claim of a test 277 (005010X212): its trace number, PCN and STC. */
export interface Answer {
  readonly trace: string
  readonly pcn?: string
  /** STC01-1. */
  readonly category: string
  readonly status?: string
  readonly paid?: string
  readonly payerControl?: string
  readonly text?: string
  /** Written under a dependent (HL 23) rather than the subscriber. */
  readonly dependent?: boolean
}

/** A 277 claim status response naming claims by trace number (and PCN), as a payer answers a 276. */
export const make277Status = (icn: number, answers: ReadonlyArray<Answer>, levelStatus?: string): string => {
  const body = ["BHT*0010*08*277X*20261124*1015*DG", "HL*1**20*1", "NM1*PR*2*EXAMPLE PAYER*****PI*PAYER1"]
  if (levelStatus !== undefined) body.push(`STC*${levelStatus}:0*20261124`)
  body.push("HL*2*1*21*1", "NM1*41*2*ENCOUNTERD BILLING*****46*SUB123", "HL*3*2*19*1", "NM1*1P*2*EXAMPLE CLINIC*****XX*1234567893")
  let hl = 4
  for (const a of answers) {
    const subscriber = hl++
    body.push(`HL*${subscriber}*3*22*${a.dependent === true ? "1" : "0"}`, "NM1*IL*1*DOE*JANE****MI*M123")
    if (a.dependent === true) body.push(`HL*${hl++}*${subscriber}*23`, "NM1*QC*1*DOE*JIM")
    const paid = a.paid ?? ""
    body.push(`TRN*2*${a.trace}`, `STC*${a.category}:${a.status ?? "20"}:PR*20261124**125.00*${paid}${a.text === undefined ? "" : `*******${a.text}`}`)
    if (a.payerControl !== undefined) body.push(`REF*1K*${a.payerControl}`)
    if (a.pcn !== undefined) body.push(`REF*EJ*${a.pcn}`)
    body.push("DTP*472*RD8*20260924-20261008")
  }
  return envelope(icn, "HN", "005010X212", "277", body)
}
