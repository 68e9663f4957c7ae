import type { EncounterCreate, Subscriber } from "../../domain/encounter-input.js"
import { ExportProblem } from "../errors.js"
import { cleanText, isX12Safe } from "../values.js"
import { extraProblems } from "./exportability-extras.js"

/**
 * Why a stored create payload cannot go into an 837P (005010X222A1), as `{field, message}` pairs
 * located by payload path; empty when it can. The preview and the batch export both call it, and
 * the 837P builder refuses any claim for which it is not empty.
 */

/** ICD-10-CM qualifiers; the 837P writes the principal one as ABK and the others as ABF. */
const ICD10_TYPES: ReadonlyArray<string> = ["ABK", "ABF", "ABJ", "APR"]
/** HI holds 12 diagnosis codes on a professional claim. */
export const MAX_DIAGNOSES = 12
/** The 2400 loop repeats at most 50 times per claim. */
export const MAX_SERVICE_LINES = 50
const PROCEDURE_CODE = /^[A-Z0-9]{5}$/
const TAXONOMY = /^[0-9A-Z]{10}$/

export const exportability = (payload: EncounterCreate): ReadonlyArray<ExportProblem> => {
  const problems: Array<ExportProblem> = []
  const problem = (field: string, message: string) => problems.push(new ExportProblem({ field, message }))
  const text = (field: string, value: string | undefined) => {
    if (value !== undefined && cleanText(value, 60) === "") problem(field, "has no characters an 837P can carry")
  }
  const identifier = (field: string, value: string, min: number, max: number) => {
    if (!isX12Safe(value)) problem(field, "must be printable ASCII without * ~ : ^ or edge spaces to be sent as is")
    else if (value.length < min || value.length > max) problem(field, `must be ${min} to ${max} characters in an 837P`)
  }

  if (payload.billable_status !== "BILLABLE") problem("billable_status", `is ${payload.billable_status}: only billable encounters are exported`)
  if (payload.responsible_party !== "INSURANCE_PAY") {
    problem("responsible_party", `is ${payload.responsible_party}: only claims billed to insurance are exported`)
  }
  if (payload.subscriber_primary === undefined) problem("subscriber_primary", "is required to bill a payer")

  const optional = (field: string, value: string | undefined, max: number) => {
    // An empty optional string is written as no segment at all.
    if (value !== undefined && value !== "") identifier(field, value, 1, max)
  }
  const taxonomy = (field: string, value: string | undefined) => {
    if (value !== undefined && !TAXONOMY.test(value)) problem(field, "must be a 10-character provider taxonomy code")
  }

  const subscriber = (path: string, s: Subscriber) => {
    optional(`${path}.insurance_card.group_number`, s.insurance_card.group_number, 50)
    identifier(`${path}.insurance_card.payer_id`, s.insurance_card.payer_id, 2, 80)
    identifier(`${path}.insurance_card.member_id`, s.insurance_card.member_id, 2, 80)
    text(`${path}.insurance_card.payer_name`, s.insurance_card.payer_name)
    text(`${path}.last_name`, s.last_name)
  }
  if (payload.subscriber_primary !== undefined) subscriber("subscriber_primary", payload.subscriber_primary)
  if (payload.subscriber_secondary !== undefined) subscriber("subscriber_secondary", payload.subscriber_secondary)

  optional("prior_authorization_number", payload.prior_authorization_number, 50)
  optional("referral_number", payload.referral_number, 50)
  taxonomy("billing_provider.taxonomy_code", payload.billing_provider.taxonomy_code)
  taxonomy("rendering_provider.taxonomy_code", payload.rendering_provider.taxonomy_code)

  const bp = payload.billing_provider
  if (cleanText(bp.organization_name ?? bp.last_name ?? "", 60) === "") {
    problem("billing_provider.organization_name", "is required (or last_name for an individual billing provider)")
  }
  const rp = payload.rendering_provider
  if (rp.npi !== bp.npi && cleanText(rp.last_name ?? rp.organization_name ?? "", 60) === "") {
    problem("rendering_provider.last_name", "is required when the rendering provider is not the billing provider")
  }
  text("patient.last_name", payload.patient.last_name)
  text("service_facility.organization_name", payload.service_facility?.organization_name)

  if (payload.diagnoses.length > MAX_DIAGNOSES) {
    problem("diagnoses", `has ${payload.diagnoses.length} entries; an 837P carries at most ${MAX_DIAGNOSES}`)
  }
  payload.diagnoses.forEach((d, i) => {
    if (!ICD10_TYPES.includes(d.code_type)) {
      problem(`diagnoses[${i}].code_type`, `is ${d.code_type}: an 837P carries ICD-10-CM codes (ABK, ABF) only`)
    }
  })

  const lines = payload.service_lines ?? []
  if (lines.length === 0) problem("service_lines", "must have at least one line to bill")
  if (lines.length > MAX_SERVICE_LINES) problem("service_lines", `has ${lines.length} lines; an 837P claim carries at most ${MAX_SERVICE_LINES}`)
  lines.forEach((line, i) => {
    const path = `service_lines[${i}]`
    if (line.charge_amount_cents === undefined) problem(`${path}.charge_amount_cents`, "is required to bill the line")
    optional(`${path}.prior_authorization_number`, line.prior_authorization_number, 50)
    if (!PROCEDURE_CODE.test(line.procedure_code)) problem(`${path}.procedure_code`, "must be a 5-character CPT or HCPCS code")
    if (line.date_of_service === undefined && payload.date_of_service === undefined) {
      problem(`${path}.date_of_service`, "is required when the encounter has no date_of_service")
    }
  })
  for (const [field, message] of extraProblems(payload)) problem(field, message)
  return problems
}
