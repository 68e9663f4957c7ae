import type { EncounterCreate } from "../../domain/encounter-input.js"
import { cleanText, isX12Safe } from "../values.js"
import { ACCIDENT_CAUSES, DELAY_REASONS_837P, ndc11, RELATED_CAUSES_837P } from "./claim-extras.js"

/**
 * What of the claim's further places (`claim-extras.ts`) an 837P cannot hold, as `[field, message]`
 * pairs: values its code lists refuse, a person's loop without a name, an accident without its
 * date. The builder never drops such a value silently; `exportability` refuses the claim with these.
 */
export const extraProblems = (p: EncounterCreate): ReadonlyArray<readonly [string, string]> => {
  const problems: Array<readonly [string, string]> = []
  const problem = (field: string, message: string) => problems.push([field, message])
  const identifier = (field: string, value: string | undefined, max: number) => {
    if (value === undefined || value === "") return
    if (!isX12Safe(value)) problem(field, "must be printable ASCII without * ~ : ^ or edge spaces to be sent as is")
    else if (value.length > max) problem(field, `must be at most ${max} characters in an 837P`)
  }
  const person = (field: string, last: string | undefined, loop: string) => {
    if (cleanText(last ?? "", 60) === "") problem(`${field}.last_name`, `is required: ${loop} names a person`)
  }

  const r = p.related_causes_information
  const causes = r === undefined ? [] : [r.related_causes_code_1, r.related_causes_code_2].filter((c) => c !== undefined)
  if (r !== undefined) {
    for (const [key, code] of [["related_causes_code_1", r.related_causes_code_1], ["related_causes_code_2", r.related_causes_code_2]] as const) {
      if (code !== undefined && !RELATED_CAUSES_837P.includes(code)) {
        problem(`related_causes_information.${key}`, `is ${code}: CLM11 takes AA (auto accident), EM (employment) or OA (other accident)`)
      }
    }
    if (causes.includes("AA") && !/^[A-Z]{2}$/.test(r.state_or_province_code ?? "")) {
      problem("related_causes_information.state_or_province_code", "is required for an auto accident (CLM11-4): a two-letter state or province code")
    }
  }
  const accident = causes.some((c) => ACCIDENT_CAUSES.includes(c))
  if (accident && p.accident_date === undefined) problem("accident_date", "is required when the related causes name an accident (DTP*439)")
  if (!accident && p.accident_date !== undefined) {
    problem("accident_date", "goes into an 837P (DTP*439) only with an accident's related cause (related_causes_information AA or OA)")
  }
  if (p.delay_reason_code !== undefined && !DELAY_REASONS_837P.includes(p.delay_reason_code)) {
    problem("delay_reason_code", `is ${p.delay_reason_code}: CLM20 takes ${DELAY_REASONS_837P.join(", ")}`)
  }
  if (p.referring_provider !== undefined) {
    person("referring_provider", p.referring_provider.last_name, "2310A (NM1*DN)")
    identifier("referring_provider.secondary_identification.reference_identification", p.referring_provider.secondary_identification?.reference_identification, 50)
  }
  if (p.supervising_provider !== undefined) {
    person("supervising_provider", p.supervising_provider.last_name, "2310D (NM1*DQ)")
    identifier("supervising_provider.secondary_identification.reference_identification", p.supervising_provider.secondary_identification?.reference_identification, 50)
  }
  ;(p.service_lines ?? []).forEach((line, i) => {
    const path = `service_lines[${i}]`
    if (line.ordering_provider !== undefined) person(`${path}.ordering_provider`, line.ordering_provider.last_name, "2420E (NM1*DK)")
    const d = line.drug_identification
    if (d === undefined) return
    if (d.service_id_qualifier !== "N4") problem(`${path}.drug_identification.service_id_qualifier`, `is ${d.service_id_qualifier}: 2410 LIN02 takes N4 (an NDC) only`)
    if (!/^\d{11}$/.test(ndc11(d.national_drug_code))) {
      problem(`${path}.drug_identification.national_drug_code`, "must be an 11-digit NDC (5-4-2, hyphens allowed) for LIN03")
    }
    if (!/^\d{1,10}(\.\d{1,5})?$/.test(d.national_drug_unit_count)) {
      problem(`${path}.drug_identification.national_drug_unit_count`, "must be a decimal quantity for CTP04")
    }
    identifier(`${path}.drug_identification.pharmacy_prescription_number`, d.pharmacy_prescription_number, 50)
    identifier(`${path}.drug_identification.link_sequence_number`, d.link_sequence_number, 50)
    if ((d.pharmacy_prescription_number ?? "") !== "" && (d.link_sequence_number ?? "") !== "") {
      problem(`${path}.drug_identification.link_sequence_number`, "2410 carries one reference: the prescription number (REF*XZ) or the link sequence number (REF*VY), not both")
    }
  })
  return problems
}
