import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { api, runCli } from "./binary.js"
import { repetitionsUnder } from "./x12-bombs.js"

/** The API's body limit: the hostile files are made as large as it allows. */
export const BOMB_LIMIT = 10 * 1024 * 1024

/** A claim the hostile files may name: its encounter, its id and its patient control number. */
export interface BombClaim {
  readonly encounter: string
  readonly claim: string
  readonly pcn: string
}

export interface BombTarget {
  /** A `claims:write` key of the workspace `default`. */
  readonly key: string
  /** The GS06 of the 837P batch the claims were sent in (what a 999 acknowledges). */
  readonly group: number
  readonly claims: ReadonlyArray<BombClaim>
}

export const bombPcn = (i: number) => `PCN${String(i).padStart(7, "0")}`

/**
 * Readies a served binary for the hostile files (test/binary/x12-bounds.test.ts and
 * bench/x12-bombs.ts): a `claims:write` key made with the CLI on `db`, clearinghouse settings,
 * and `count` claims (external ids `${label}-n`) sent in one 837P batch. Throws on any refusal.
 */
export const prepareBombTarget = async (url: string, db: string, count: number, label: string): Promise<BombTarget> => {
  const made = await runCli(["keys", "create", "--workspace", "default", "--scope", "claims:write"], { db })
  if (made.code !== 0) throw new Error(`keys create exited ${made.code}`)
  const key: string = made.json.key
  const settings = await api(url, key, "/api/workspace/clearinghouse", { method: "PUT", body: clearinghouseSettingsInput })
  if (settings.status !== 200) throw new Error(`the clearinghouse settings were answered ${settings.status}`)
  const claims: Array<BombClaim> = []
  for (let i = 0; i < count; i++) {
    const created = await api(url, key, "/api/encounters", { body: exportablePayload(`${label}-${i}`, bombPcn(i)) })
    const read = await api(url, key, `/api/encounters/${created.body.encounter_id}`)
    claims.push({ encounter: created.body.encounter_id, claim: read.body.latest_claim_id, pcn: bombPcn(i) })
  }
  const batch = await api(url, key, "/api/x12/837p-batches", { body: { claim_ids: claims.map((c) => c.claim) } })
  if (batch.status !== 201) throw new Error(`the 837P batch was answered ${batch.status}`)
  return { key, group: batch.body.group_control_number, claims }
}

/**
 * Files at the body limit from `make(icn, repetitions)`, each with a fresh ISA13 (from 701 on), so
 * no import is a duplicate of another.
 */
export const filesAtLimit = () => {
  let icn = 700
  return (make: (icn: number, n: number) => string) => () => {
    const control = ++icn
    return make(control, repetitionsUnder(BOMB_LIMIT, (n) => make(control, n)))
  }
}

/** A patient control number no claim has. */
export const unknownPcn = (i: number) => `UNK${String(i).padStart(7, "0")}`
