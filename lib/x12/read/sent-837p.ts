import { Either } from "effect"
import { readInterchange } from "./interchange.js"
import { element } from "./tokenize.js"

/**
 * The claims of one transaction set of an 837P we sent, read back from the batch's stored bytes:
 * what a 277CA's batch-level (2200B) or billing-provider-level (2200C) status covers. The set is
 * named by its BHT03, which the 277CA's 2200B TRN02 echoes.
 */

export interface SentClaim {
  /** CLM01. */
  readonly patient_control_number: string
  /** NM109 of the claim's billing provider (2010AA NM1*85), when an NPI. */
  readonly billing_provider_npi: string | undefined
}

/** The ISA13 (our batch's control number) a BHT03 we wrote starts with (`000000012-0001`). */
export const batchOfReference = (reference: string): number | undefined => {
  const m = /^(\d{1,9})-\S+$/.exec(reference)
  return m === null ? undefined : Number(m[1])
}

/** The claims of the set whose BHT03 is `reference`, in file order; undefined when no set of the file has it. */
export const sentClaimsOf = (file: string, reference: string): ReadonlyArray<SentClaim> | undefined => {
  const read = readInterchange(file)
  if (Either.isLeft(read)) return undefined
  for (const group of read.right.groups) {
    for (const set of group.transaction_sets) {
      const bht = set.segments.find((s) => s.id === "BHT")
      if (bht === undefined || element(bht, 3) !== reference) continue
      const claims: Array<SentClaim> = []
      let npi: string | undefined
      let level = ""
      for (const s of set.segments) {
        if (s.id === "HL") level = element(s, 3)
        else if (s.id === "NM1" && level === "20" && element(s, 1) === "85") npi = element(s, 8) === "XX" ? element(s, 9) : undefined
        else if (s.id === "CLM") claims.push({ patient_control_number: element(s, 1), billing_provider_npi: npi })
      }
      return claims
    }
  }
  return undefined
}
