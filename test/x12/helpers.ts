import { Either } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { ClearinghouseSettings } from "../../lib/domain/clearinghouse.js"
import type { EncounterCreate } from "../../lib/domain/encounter-input.js"
import { validateEncounterCreate } from "../../lib/domain/validate.js"

/** Shared inputs of the X12 tests: fixture files and a workspace's clearinghouse settings. */

const dir = join(import.meta.dir, "..", "fixtures", "x12")

/** A hand-written X12 sample under test/fixtures/x12. */
export const x12Fixture = (name: string): string => readFileSync(join(dir, name), "utf8")

/** Any JSON value, decoded as the create payload the service would have stored. */
export const asPayload = (raw: unknown): EncounterCreate => {
  const decoded = validateEncounterCreate(raw)
  if (Either.isLeft(decoded)) throw new Error(`invalid payload: ${decoded.left.map((i) => `${i.path} ${i.message}`).join("; ")}`)
  return decoded.right
}

export const rawEncounter = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, "encounters", `${name}.json`), "utf8"))

/** A stored encounter fixture (a copy of ../shared/fixtures/valid), decoded. */
export const encounter = (name: string): EncounterCreate => asPayload(rawEncounter(name))

export const settings: ClearinghouseSettings = {
  interchange_sender_id: "SENDER01",
  interchange_receiver_id: "CLEARHOUSE",
  submitter: { name: "Encounterd Billing", id: "SUB123", contact_name: "Ops Desk", contact_phone: "6155550100", contact_email: "ops@example.com" },
  receiver: { name: "Example Clearinghouse", id: "CH987" },
  usage: "T"
}

/** Unwraps a Right, failing the test with the Left's message otherwise. */
export const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(`expected success, got ${e.left instanceof Error ? e.left.message : String(e.left)}`)
  return e.right
}

export const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) throw new Error("expected a failure, got success")
  return e.left
}
