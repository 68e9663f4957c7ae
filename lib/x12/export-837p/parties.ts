import type { AddressShortZip } from "../../domain/encounter-input.js"
import { type Segment, segment } from "../segment.js"
import { cleanText, formatDate } from "../values.js"

/** The name, address and demographic segments every party loop of the 837P shares. */

export interface Name {
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly organization_name?: string | undefined
}

/**
 * NM1 for a party: a person (NM102 `1`) when a last name is known, else an organization (`2`).
 * Free text is cleaned (see `cleanText`); identifiers go in as they are.
 */
export const nm1 = (entity: string, name: Name, idQualifier?: string, id?: string): Segment => {
  const person = name.last_name !== undefined && cleanText(name.last_name, 60) !== ""
  return person
    ? segment("NM1", entity, "1", cleanText(name.last_name ?? "", 60), cleanText(name.first_name ?? "", 35), "", "", "", idQualifier, id)
    : segment("NM1", entity, "2", cleanText(name.organization_name ?? "", 60), "", "", "", "", idQualifier, id)
}

/** NM1 for an organization regardless of person names (payers, facilities, submitter). */
export const nm1Organization = (entity: string, name: string, idQualifier?: string, id?: string): Segment =>
  segment("NM1", entity, "2", cleanText(name, 60), "", "", "", "", idQualifier, id)

/** N3 and N4; the zip is 5 or 9 digits (provider addresses always carry the plus-four). */
export const address = (a: AddressShortZip): ReadonlyArray<Segment> => {
  const street2 = a.address2 === undefined ? "" : cleanText(a.address2, 55)
  return [
    segment("N3", cleanText(a.address1, 55), street2),
    segment("N4", cleanText(a.city, 30), a.state, `${a.zip_code}${a.zip_plus_four_code ?? ""}`)
  ]
}

/** DMG03: the payload's `other`, `not_given` and `unknown` are all `U`. */
export const genderCode = (gender: string): string => (gender === "male" ? "M" : gender === "female" ? "F" : "U")

export const demographics = (dateOfBirth: string, gender: string): Segment =>
  segment("DMG", "D8", formatDate(dateOfBirth), genderCode(gender))

/**
 * PAT01 in 005010X222A1 takes only these relationship codes when the patient is not the
 * subscriber; the payload's wider vocabulary (grandchild, ward, …) is sent as G8 (other).
 */
const PAT01: ReadonlyArray<string> = ["01", "19", "20", "21", "39", "40", "53", "G8"]
export const patientRelationship = (code: string): string => (PAT01.includes(code) ? code : "G8")
