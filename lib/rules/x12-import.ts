import { createHash } from "node:crypto"
import { commit } from "./commit.js"
import { Effect, Either, Option } from "effect"
import type { WorkspaceId } from "../domain/ids.js"
import type { InboundKind, InboundResult, X12FileRecord } from "../domain/x12-exchange.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { insert } from "../ports/write.js"
import { X12ReadError } from "../x12/errors.js"
import { type Ack277CA, read277CA } from "../x12/read/ack-277ca.js"
import { type Ack999, read999 } from "../x12/read/ack-999.js"
import { detectKind, type Interchange, readInterchange } from "../x12/read/interchange.js"
import { read835, type Remittance835 } from "../x12/read/remit-835.js"
import { actionsFrom999, statusFrom277Claim, statusFrom835Claim } from "../x12/status-mapping.js"
import { type ImportPlan, makeImportPlan } from "./x12-import-plan.js"

/** One uploaded interchange, as received. */
export interface X12Upload {
  readonly workspace_id: WorkspaceId
  readonly body: Uint8Array
  readonly content_type: string
  readonly key_id?: string | null
}

type Parsed = Ack999 | Ack277CA | Remittance835

/** Reads the bytes as one 999, 277CA or 835 interchange; anything else is an `X12ReadError`. */
interface ParsedFile {
  readonly interchange: Interchange
  readonly parsed: Parsed
  readonly kind: InboundKind
}

const parse = (text: string): Either.Either<ParsedFile, X12ReadError> =>
  Either.flatMap(readInterchange(text), (interchange): Either.Either<ParsedFile, X12ReadError> => {
    const kind = detectKind(interchange)
    const st = interchange.groups[0]?.transaction_sets[0]
    const at = { segment_id: "ST", position: st?.position ?? 1 }
    const withKind = (k: InboundKind, read: Either.Either<Parsed, X12ReadError>) =>
      Either.map(read, (parsed): ParsedFile => ({ interchange, parsed, kind: k }))
    switch (kind) {
      case "999":
        return withKind("999", read999(interchange))
      case "277CA":
        return withKind("277CA", read277CA(interchange))
      case "835":
        return withKind("835", read835(interchange))
      case "837P":
        return Either.left(new X12ReadError({ ...at, reason: "an 837P is what this service sends; import takes a 999, 277CA or 835" }))
      case "unknown":
        return Either.left(new X12ReadError({ ...at, reason: "expected a 999, 277CA (005010X214) or 835 transaction set" }))
    }
  })

const plan999 = (ws: WorkspaceId, plan: ImportPlan, ack: Ack999) =>
  Effect.gen(function* () {
    const storage = yield* Storage
    for (const a of actionsFrom999(ack)) {
      const group = /^\d{1,9}$/.test(a.group_control_number) ? Number(a.group_control_number) : undefined
      const batch = group === undefined ? Option.none() : yield* storage.findX12BatchByGroup(ws, group)
      const set = a.transaction_set_control_number
      if (Option.isNone(batch)) {
        plan.unmatched(null, `no 837P batch with group control number ${a.group_control_number}`)
        continue
      }
      // Without set detail the 999 judged the whole group: every set of the batch.
      const sets = batch.value.transaction_sets.filter((s) => set === undefined || s.control_number === set || Number(s.control_number) === Number(set))
      if (sets.length === 0) plan.unmatched(null, `batch ${batch.value.id} has no transaction set ${set ?? ""}`)
      for (const claimId of sets.flatMap((s) => s.claim_ids)) {
        const t = yield* plan.byId(claimId)
        if (t === undefined) plan.unmatched(null, `claim ${claimId} of batch ${batch.value.id} is gone`)
        else plan.apply(t, a.action)
      }
    }
  })

const plan277 = (plan: ImportPlan, ack: Ack277CA) =>
  Effect.gen(function* () {
    for (const c of ack.claims) {
      const t = yield* plan.byPcn(c.patient_control_number)
      if (t === undefined) {
        plan.unmatched(c.patient_control_number, `no claim with patient control number ${c.patient_control_number} (277CA TRN02)`)
        continue
      }
      plan.payerControlNumber(t, c.payer_claim_control_number)
      plan.apply(t, statusFrom277Claim(c))
    }
  })

const plan835 = (plan: ImportPlan, remit: Remittance835, fileId: string) =>
  Effect.gen(function* () {
    for (const payment of remit.payments) {
      for (const c of payment.claims) {
        const t = yield* plan.byPcn(c.patient_control_number)
        if (t === undefined) {
          plan.unmatched(c.patient_control_number, `no claim with patient control number ${c.patient_control_number} (835 CLP01)`)
          continue
        }
        plan.payerControlNumber(t, c.payer_claim_control_number)
        plan.remittance(t, {
          file_id: fileId,
          check_number: payment.trace_number,
          payment_date: payment.payment_date,
          payer_claim_control_number: c.payer_claim_control_number ?? null,
          charge_amount_cents: c.charge_cents,
          paid_amount_cents: c.paid_cents,
          patient_responsibility_cents: c.patient_responsibility_cents ?? null,
          adjustments: c.adjustments.map(({ group, reason, amount_cents }) => ({ group, reason, amount_cents })),
          service_lines: c.service_lines.map((l) => ({
            procedure_code: l.procedure_code,
            charge_amount_cents: l.charge_cents,
            paid_amount_cents: l.paid_cents,
            adjustments: l.adjustments.map(({ group, reason, amount_cents }) => ({ group, reason, amount_cents }))
          }))
        })
        plan.apply(t, statusFrom835Claim(c))
      }
    }
  })

/** What makes two uploads one interchange: the sender and its ISA13. */
export const interchangeKey = (sender: string, control: string): string => `${sender}|${control}`

/** An earlier import of the same interchange, answered again (invalid files are never matched). */
const duplicateOf = (found: Option.Option<X12FileRecord>): InboundResult | undefined => {
  if (Option.isNone(found)) return undefined
  const f = found.value
  return f.kind === "invalid" ? undefined : { id: f.id, kind: f.kind, duplicate: true, claims: f.claims }
}

/**
 * Imports one 999, 277CA or 835 interchange. In one write the file is stored (bytes as received,
 * with what it did) and its effects applied: status moves along the transition table, each with
 * its StatusUpdated event; acknowledgments; the payer's claim control numbers; remittances. A
 * move the table refuses is a `conflict` and is not applied; an unknown control number is
 * `unmatched`. The same interchange again (same sender and ISA13, or the same bytes) answers the
 * first import as a duplicate and applies nothing. A malformed file is stored as `invalid` with its
 * error, applies nothing, and fails with `X12ReadError` (the segment and its 1-based position).
 */
export const importX12File = (upload: X12Upload) =>
  Effect.gen(function* () {
    const ws = upload.workspace_id
    const storage = yield* Storage
    const clock = yield* Clock
    const ids = yield* Ids
    const sha256 = createHash("sha256").update(upload.body).digest("hex")
    const received = (at: string, id: string) => ({
      id,
      workspace_id: ws,
      received_at: at,
      key_id: upload.key_id ?? null,
      content_type: upload.content_type,
      sha256,
      body: upload.body
    })
    const read = parse(new TextDecoder().decode(upload.body))
    if (Either.isLeft(read)) {
      // Kept as received, with why: the list of files shows what came in, also what was refused.
      const id = ids.next()
      const invalid: X12FileRecord = {
        ...received(isoTime(clock.now()), id),
        kind: "invalid",
        sender_id: null,
        interchange_control_number: null,
        interchange_key: `invalid|${id}`,
        claims: [],
        error: read.left.message
      }
      yield* commit({ operation: "importX12File", steps: [insert("x12_files", invalid)] })
      return yield* read.left
    }
    const { interchange, parsed, kind } = read.right
    const key = interchangeKey(interchange.sender_id, interchange.control_number)
    for (;;) {
      const same = duplicateOf(yield* storage.findX12FileBySha(ws, sha256)) ?? duplicateOf(yield* storage.findX12FileByInterchange(ws, key))
      if (same !== undefined) return same

      const at = isoTime(clock.now())
      const fileId = ids.next()
      const plan = makeImportPlan(ws, at, () => ids.next())
      if (parsed.kind === "999") yield* plan999(ws, plan, parsed)
      else if (parsed.kind === "277CA") yield* plan277(plan, parsed)
      else yield* plan835(plan, parsed, fileId)
      const file: X12FileRecord = {
        ...received(at, fileId),
        kind,
        sender_id: interchange.sender_id,
        interchange_control_number: interchange.control_number,
        interchange_key: key,
        claims: plan.outcomes,
        error: null
      }
      const result = yield* commit<"stale" | "duplicate">({
        operation: "importX12File",
        steps: [insert("x12_files", file, { unique: "interchange", refuse: () => "duplicate" as const }), ...plan.steps]
      })
      if (result._tag === "Written") return { id: fileId, kind, duplicate: false, claims: plan.outcomes } satisfies InboundResult
      // "stale": a claim moved meanwhile; "duplicate": the same interchange was imported meanwhile (found on the next turn).
    }
  })
