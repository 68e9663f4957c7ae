import { randomInt, randomUUID } from "node:crypto"
import { Effect, Either, Option } from "effect"
import { STATUS_CHECK_DEFAULTS, type StatusCheckRecord } from "../domain/status-check.js"
import { Clock, Ids, isoTime } from "../ports/clock.js"
import { Storage } from "../ports/storage.js"
import { type Step, update } from "../ports/write.js"
import { coreTimestamp } from "../status-checks/core-envelope.js"
import { exchangeCore } from "../status-checks/core-client.js"
import { open, type SecretBoxKey } from "../webhooks/secret-box.js"
import { readInterchange } from "../x12/read/interchange.js"
import { readStatus277 } from "../x12/read/status-277.js"
import { build276 } from "../x12/export-276/build.js"
import { answeredCheck, applyAnswer, checkStatuses } from "./status-check-answers.js"
import { inquiryOf } from "./status-check-inquiry.js"
import { passwordContext } from "./status-check-settings.js"
import { claimOf } from "./status-checks.js"
import { commit } from "./commit.js"
import { makeImportPlan } from "./x12-import-plan.js"

/** How the `core` sender works: its timeout and the delays before each retry. */
export interface CoreSendOptions {
  readonly timeoutMs: number
  /** The delay before each retry of a transient failure; past the last, the check fails. */
  readonly retryDelaysMs: ReadonlyArray<number>
  readonly key: Option.Option<SecretBoxKey>
}

export const DEFAULT_RETRY_DELAYS_MS: ReadonlyArray<number> = [30_000, 120_000, 600_000]
/** A lease outlives the exchange it covers by this much. */
const LEASE_MARGIN_MS = 5_000

/** What became of one due check here. */
export type CoreRun = "claimed-elsewhere" | "answered" | "retrying" | "failed"

const released = { lease_owner: null, lease_expires_at: null } as const

/**
 * Sends one due `core` check: claims it with a lease (compare-and-set on the lease and attempt
 * count read, so of several instances one sends it), builds its 276, exchanges it over the CORE
 * envelope and records what came back: a 277's effects (as an imported 277's), a 999 or an error
 * envelope as a failed check, a transient failure as a retry after a backoff (failed past the last).
 */
export const sendCoreCheck = (check: StatusCheckRecord, owner: string, options: CoreSendOptions) =>
  Effect.gen(function* () {
    const clock = yield* Clock
    const storage = yield* Storage
    const ws = check.workspace_id
    const claimedAt = clock.now()
    const claimed = yield* commit({
      operation: "claimStatusCheck",
      steps: [
        update(
          "status_checks",
          check.id,
          { workspace_id: ws, status: "queued", attempts: check.attempts, lease_owner: check.lease_owner, lease_expires_at: check.lease_expires_at },
          { lease_owner: owner, lease_expires_at: isoTime(claimedAt + options.timeoutMs + LEASE_MARGIN_MS) },
          "taken"
        )
      ]
    })
    if (claimed._tag === "Refused") return "claimed-elsewhere" as const
    const mine = { ...check, lease_owner: owner }
    const settle = (steps: ReadonlyArray<Step<never>>) => commit({ operation: "settleStatusCheck", steps })
    const fail = (reason: string) =>
      Effect.as(
        settle([update("status_checks", check.id, { workspace_id: ws, lease_owner: owner }, { status: "failed", error: reason, attempts: check.attempts + 1, next_attempt_at: null, ...released })]),
        "failed" as const
      )

    const settings = yield* storage.get("status_check_settings", ws, ws)
    const core = Option.isSome(settings) ? settings.value.settings.core : null
    if (core === null) return yield* fail("The workspace has no core connection in its status check settings")
    if (Option.isNone(options.key)) return yield* fail("The server has no secret key to open the core password with")
    const password = open(core.password, options.key.value, passwordContext(ws))
    if (Either.isLeft(password)) return yield* fail(`The core password cannot be opened: ${password.left.reason}`)
    const clearinghouse = yield* storage.findClearinghouseSettings(ws)
    if (Option.isNone(clearinghouse)) return yield* fail("The workspace has no clearinghouse settings (the 276's envelope needs them)")
    const found = yield* Effect.either(claimOf(ws, check.claim_id))
    if (Either.isLeft(found)) return yield* fail("The claim is gone")
    const windowDays = Option.match(settings, { onNone: () => STATUS_CHECK_DEFAULTS.window_days, onSome: (r) => r.settings.window_days })
    // Real-time interchanges are answered in the same exchange: their control number only has to be well formed.
    const control = randomInt(1, 1_000_000_000)
    const built = build276({
      settings: clearinghouse.value.settings,
      interchange_control_number: control,
      group_control_number: control,
      created_at: new Date(claimedAt),
      inquiries: [inquiryOf(check, found.right, windowDays)]
    })
    if (Either.isLeft(built)) return yield* fail(`The 276 cannot be built: ${built.left.message}`)

    const exchange = yield* exchangeCore(
      core.url,
      { payloadId: randomUUID(), timestamp: coreTimestamp(claimedAt), senderId: core.sender_id, receiverId: core.receiver_id, username: core.username, password: password.right, payload: built.right.text },
      options.timeoutMs
    )
    const at = isoTime(clock.now())
    if (exchange._tag === "Refused") return yield* fail(exchange.reason)
    const answer = exchange._tag === "Answered" ? exchange.answer : undefined
    const transient = exchange._tag === "Transient" ? exchange.reason : answer?.kind === "error" ? `error envelope ${answer.code}: ${answer.message}`.slice(0, 500) : undefined
    if (transient !== undefined || answer === undefined) {
      const reason = transient ?? "no answer"
      const delay = options.retryDelaysMs[check.attempts]
      if (delay === undefined) return yield* fail(reason)
      yield* settle([
        update("status_checks", check.id, { workspace_id: ws, lease_owner: owner }, { attempts: check.attempts + 1, error: reason, next_attempt_at: isoTime(clock.now() + delay), ...released })
      ])
      return "retrying" as const
    }
    if (answer.kind === "999") return yield* fail("The payer rejected the inquiry (a 999 came back instead of a 277)")
    if (answer.kind === "error") return yield* fail(`error envelope ${answer.code}`)

    const read = Either.flatMap(readInterchange(answer.payload), readStatus277)
    if (Either.isLeft(read)) return yield* fail(`The 277 cannot be read: ${read.left.message}`)
    const response = read.right
    for (;;) {
      const plan = makeImportPlan(ws, at, (yield* Ids).next)
      const own = response.claims.find((c) => c.trace_number === check.trace_number) ?? response.claims[0]
      const answered = own === undefined ? undefined : yield* applyAnswer(ws, plan, at, own, 1, { ...mine, sent_at: isoTime(claimedAt) })
      const steps: Array<Step<"stale">> = [...plan.steps]
      if (answered === undefined) {
        // Nothing about this claim came back (a payer-level E0, say): answered, but unanswered.
        const current = yield* claimOf(ws, check.claim_id)
        steps.push(
          answeredCheck(ws, { ...mine, sent_at: isoTime(claimedAt) }, at, checkStatuses(own?.statuses ?? response.level_statuses, undefined), {
            outcome: "unanswered",
            previous_status: current.claim.status,
            status: current.claim.status
          })
        )
      }
      const result = yield* commit<"stale">({ operation: "answerStatusCheck", steps })
      if (result._tag === "Written") return "answered" as const
      // A claim moved meanwhile, or the check was answered elsewhere: decide again, or stop.
      const now = yield* storage.get("status_checks", ws, check.id)
      if (Option.isNone(now) || now.value.status !== "queued") return "answered" as const
    }
  })
