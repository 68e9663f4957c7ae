import { expect, test } from "bun:test"
import { CandidApi } from "candidhealth"
import * as V from "../../lib/domain/vocab.js"

/** Our closed vocabularies are exactly the vendor SDK's enum values (its runtime constants). */
const pairs: ReadonlyArray<[string, ReadonlyArray<string>, object]> = [
  ["Gender", V.Gender, CandidApi.Gender],
  ["State", V.State, CandidApi.State],
  ["DiagnosisTypeCode", V.DiagnosisTypeCode, CandidApi.diagnoses.DiagnosisTypeCode],
  ["ServiceLineUnits", V.ServiceLineUnits, CandidApi.ServiceLineUnits],
  ["FacilityTypeCode", V.FacilityTypeCode, CandidApi.FacilityTypeCode],
  ["ProcedureModifier", V.ProcedureModifier, CandidApi.ProcedureModifier],
  ["BillableStatus", V.BillableStatus, CandidApi.encounters.v4.BillableStatusType],
  ["ResponsibleParty", V.ResponsibleParty, CandidApi.encounters.v4.ResponsiblePartyType],
  ["VendorClaimStatus", V.VendorClaimStatus, CandidApi.claims.ClaimStatus],
  ["InsuranceTypeCode", V.InsuranceTypeCode, CandidApi.InsuranceTypeCode],
  ["SourceOfPaymentCode", V.SourceOfPaymentCode, CandidApi.SourceOfPaymentCode]
]

test.each(pairs)("%s matches the vendor SDK", (_name, ours, theirs) => {
  expect([...ours].sort()).toEqual(Object.values(theirs).map(String).sort())
})
