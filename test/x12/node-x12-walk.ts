import { X12Interchange, X12Parser, type X12Segment, type X12Transaction } from "node-x12"

/**
 * Reads an 837P back with node-x12, an independent parser, into plain per-claim records, so the
 * tests compare our output to the payload through someone else's reading of the file.
 */

export const parseWithNodeX12 = (text: string): X12Interchange => {
  // Strict mode: node-x12 itself checks the SE/GE/IEA counts and control numbers.
  const parsed = new X12Parser(true).parse(text)
  if (!(parsed instanceof X12Interchange)) throw new Error("expected exactly one interchange")
  return parsed
}

export const val = (s: X12Segment, n: number): string => s.valueOf(n, "") ?? ""
export const parts = (s: X12Segment, n: number): ReadonlyArray<string> => val(s, n).split(":")

export interface ReadLine {
  sv1: X12Segment
  dtp472: string
  refs: Map<string, string>
}

export interface ReadClaim {
  st02: string
  billing: { hl: string; npi: string; taxId: string; taxonomy: string | undefined; nm1: X12Segment }
  subscriberHl: X12Segment
  sbr: X12Segment
  subscriber: X12Segment
  subscriberDmg: X12Segment | undefined
  payer: X12Segment
  patient: { hl: X12Segment; pat: X12Segment; nm1: X12Segment; dmg: X12Segment | undefined } | undefined
  clm: X12Segment
  hi: ReadonlyArray<ReadonlyArray<string>>
  refs: Map<string, string>
  rendering: { nm1: X12Segment; prv: X12Segment | undefined } | undefined
  facility: X12Segment | undefined
  secondary: { sbr: X12Segment; oi: X12Segment | undefined; member: X12Segment | undefined; payer: X12Segment | undefined } | undefined
  lines: Array<ReadLine>
}

/** Walks one transaction set, segment by segment, the way a receiver would. */
export const claimsOf = (tx: X12Transaction): Array<ReadClaim> => {
  const st02 = val(tx.header, 2)
  const claims: Array<ReadClaim> = []
  let billing: ReadClaim["billing"] | undefined
  let sub: Partial<ReadClaim> = {}
  let claim: ReadClaim | undefined
  let last = ""
  for (const s of tx.segments) {
    const q = `${s.tag}*${val(s, 1)}`
    if (s.tag === "HL" && val(s, 3) === "20") {
      billing = { hl: val(s, 1), npi: "", taxId: "", taxonomy: undefined, nm1: s }
      claim = undefined
    } else if (s.tag === "PRV" && val(s, 1) === "BI" && billing) billing.taxonomy = val(s, 3)
    else if (q === "NM1*85" && billing) Object.assign(billing, { npi: val(s, 9), nm1: s })
    else if (q === "REF*EI" && billing) billing.taxId = val(s, 2)
    else if (s.tag === "HL" && val(s, 3) === "22") {
      sub = { subscriberHl: s }
      claim = undefined
    } else if (s.tag === "SBR" && claim === undefined) sub.sbr = s
    else if (q === "NM1*IL" && claim === undefined) sub.subscriber = s
    else if (s.tag === "DMG" && claim === undefined && sub.patient === undefined) sub.subscriberDmg = s
    else if (q === "NM1*PR" && claim === undefined) sub.payer = s
    else if (s.tag === "HL" && val(s, 3) === "23") sub.patient = { hl: s, pat: s, nm1: s, dmg: undefined }
    else if (s.tag === "PAT" && sub.patient) sub.patient.pat = s
    else if (q === "NM1*QC" && sub.patient) sub.patient.nm1 = s
    else if (s.tag === "DMG" && sub.patient) sub.patient.dmg = s
    else if (s.tag === "CLM") {
      if (!billing || !sub.subscriberHl || !sub.sbr || !sub.subscriber || !sub.payer) throw new Error(`CLM ${val(s, 1)} outside a complete 2000A/2000B`)
      claim = {
        st02,
        billing: { ...billing },
        subscriberHl: sub.subscriberHl,
        sbr: sub.sbr,
        subscriber: sub.subscriber,
        subscriberDmg: sub.subscriberDmg,
        payer: sub.payer,
        patient: sub.patient,
        clm: s,
        hi: [],
        refs: new Map(),
        rendering: undefined,
        facility: undefined,
        secondary: undefined,
        lines: []
      }
      claims.push(claim)
    } else if (claim !== undefined) {
      const line = claim.lines[claim.lines.length - 1]
      if (s.tag === "HI") claim.hi = s.elements.map((e) => e.value.split(":"))
      else if (q === "NM1*82") claim.rendering = { nm1: s, prv: undefined }
      else if (s.tag === "PRV" && last === "NM1*82" && claim.rendering) claim.rendering.prv = s
      else if (q === "NM1*77") claim.facility = s
      else if (s.tag === "SBR") claim.secondary = { sbr: s, oi: undefined, member: undefined, payer: undefined }
      else if (s.tag === "OI" && claim.secondary) claim.secondary.oi = s
      else if (q === "NM1*IL" && claim.secondary) claim.secondary.member = s
      else if (q === "NM1*PR" && claim.secondary) claim.secondary.payer = s
      else if (s.tag === "LX") claim.lines.push({ sv1: s, dtp472: "", refs: new Map() })
      else if (s.tag === "SV1" && line) line.sv1 = s
      else if (q === "DTP*472" && line) line.dtp472 = val(s, 3)
      else if (s.tag === "REF" && line) line.refs.set(val(s, 1), val(s, 2))
      else if (s.tag === "REF") claim.refs.set(val(s, 1), val(s, 2))
    }
    last = q
  }
  return claims
}

/** The transaction set as a string of tokens (`HL*22` by level, `NM1*IL` by entity, else the tag), to match loop order. */
export const tokens = (tx: X12Transaction): string =>
  tx.segments
    .map((s) => (s.tag === "HL" ? `HL*${val(s, 3)}` : s.tag === "NM1" || s.tag === "REF" && val(s, 1) === "EI" ? `${s.tag}*${val(s, 1)}` : s.tag))
    .join(" ")
