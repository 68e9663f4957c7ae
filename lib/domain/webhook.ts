import { Either, ParseResult, Schema } from "effect"
import { FieldIssue } from "./errors.js"
import { EventTypes } from "./event.js"
import { EventId, WorkspaceId } from "./ids.js"
import { boundedList } from "./bounded-list.js"
import { oneOf, opt } from "./primitives.js"
import { capProblems } from "./problems.js"
import { formatPath } from "./validate.js"

/**
 * Push delivery (Standard Webhooks): the endpoint a workspace registers, and the delivery of one
 * event to one endpoint. Field schemas are defined once and shared by records, views and inputs.
 */

export const WebhookEndpointId = Schema.String.pipe(Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type
export const WebhookDeliveryId = Schema.String.pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

/** `whsec_` + standard padded base64 of 32 random bytes: the form receivers' libraries expect. */
export const WebhookSecret = Schema.String.pipe(
  Schema.pattern(/^whsec_[A-Za-z0-9+/]{43}=$/, { message: () => "must be whsec_ followed by base64 of 32 bytes" }),
  Schema.brand("WebhookSecret")
)
export type WebhookSecret = typeof WebhookSecret.Type

/** A signing secret encrypted with the server's key (`lib/webhooks/secret-box.ts`); never plaintext. */
export const SealedSecret = Schema.String.pipe(Schema.brand("SealedSecret"))
export type SealedSecret = typeof SealedSecret.Type

export const MAX_URL_LENGTH = 2048
export const MAX_DESCRIPTION_LENGTH = 500

/** Why `s` is not an acceptable target URL, or undefined. Address checks need DNS: see targets.ts. */
export const urlProblem = (s: string): string | undefined => {
  if (s.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`
  if (!URL.canParse(s)) return "must be an absolute http or https URL"
  const url = new URL(s)
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an absolute http or https URL"
  if (url.hostname === "") return "must name a host"
  // Credentials in a URL end up in logs and listings; receivers authenticate us by the signature.
  if (url.username !== "" || url.password !== "") return "must not carry credentials (user:password@)"
  return undefined
}

export const WebhookUrl = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.filter((s) => urlProblem(s) ?? true),
  Schema.annotations({ jsonSchema: { type: "string", format: "uri" } })
)

/** One event type; the vocabulary is the feed's (`EventTypes`). */
export const WebhookEventType = oneOf("event type", EventTypes)

const eventTypesMessage = () => "must be an array of event types"

/** A repeated entry is refused where it repeats. */
const repeats = (types: ReadonlyArray<string>): Array<Schema.FilterIssue> => {
  const issues: Array<Schema.FilterIssue> = []
  const seen = new Set<string>()
  types.forEach((t, i) => {
    if (seen.has(t)) issues.push({ path: [i], message: "repeats an earlier entry" })
    seen.add(t)
  })
  return issues
}

/** Empty means every type. A repeated entry is refused where it repeats. */
export const WebhookEventTypes = Schema.Array(WebhookEventType).annotations({ message: eventTypesMessage }).pipe(Schema.filter(repeats))

/** The most entries a request's `event_types` may have: more than the vocabulary already repeats one. */
export const MAX_WEBHOOK_EVENT_TYPES = 100

/** `event_types` as a request sends it: a longer list is refused before its entries are read. */
const WebhookEventTypesInput = boundedList(WebhookEventType, MAX_WEBHOOK_EVENT_TYPES)
  .annotations({ message: eventTypesMessage })
  .pipe(Schema.filter(repeats))

export const WebhookDescription = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.maxLength(MAX_DESCRIPTION_LENGTH, { message: () => `must be at most ${MAX_DESCRIPTION_LENGTH} characters` })
)

export const WebhookEndpointStatus = oneOf("endpoint status", ["enabled", "disabled"] as const)
export type WebhookEndpointStatus = typeof WebhookEndpointStatus.Type

/**
 * An endpoint as stored. `secret` signs every message; after a rotation `previous_secret` signs
 * too until `previous_secret_expires_at`. `failing_since` is the first failed attempt since the
 * last success (null while healthy): the auto-disable rule reads it. `slot` is the endpoint's
 * place under the workspace's endpoint limit (0 to limit - 1, unique in the workspace): the
 * unique key is what holds the limit when creates race.
 */
export const WebhookEndpoint = Schema.Struct({
  id: WebhookEndpointId,
  workspace_id: WorkspaceId,
  url: WebhookUrl,
  event_types: WebhookEventTypes,
  description: Schema.NullOr(WebhookDescription),
  status: WebhookEndpointStatus,
  disabled_reason: Schema.NullOr(Schema.String),
  secret: SealedSecret,
  previous_secret: Schema.NullOr(SealedSecret),
  previous_secret_expires_at: Schema.NullOr(Schema.String),
  failing_since: Schema.NullOr(Schema.String),
  slot: Schema.Int.pipe(Schema.nonNegative()),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/** What reads answer: never a secret, sealed or not. */
export const WebhookEndpointView = WebhookEndpoint.pipe(
  Schema.omit("workspace_id", "secret", "previous_secret", "previous_secret_expires_at", "failing_since", "slot")
)
export type WebhookEndpointView = typeof WebhookEndpointView.Type

export const toWebhookEndpointView = ({
  workspace_id: _w,
  secret: _s,
  previous_secret: _p,
  previous_secret_expires_at: _e,
  failing_since: _f,
  slot: _n,
  ...view
}: WebhookEndpoint): WebhookEndpointView => view

/** The answer to a create: the view and the plaintext secret, shown this once (and on rotation). */
export const WebhookEndpointCreated = Schema.extend(WebhookEndpointView, Schema.Struct({ secret: WebhookSecret }))
export type WebhookEndpointCreated = typeof WebhookEndpointCreated.Type

export const WebhookEndpointCreate = Schema.Struct({
  url: WebhookUrl,
  event_types: opt(WebhookEventTypesInput),
  description: opt(WebhookDescription)
})
export type WebhookEndpointCreate = typeof WebhookEndpointCreate.Type

/** Every key optional; `description: null` clears it. */
export const WebhookEndpointPatch = Schema.Struct({
  url: opt(WebhookUrl),
  event_types: opt(WebhookEventTypesInput),
  description: opt(Schema.NullOr(WebhookDescription)),
  status: opt(WebhookEndpointStatus)
})
export type WebhookEndpointPatch = typeof WebhookEndpointPatch.Type

/**
 * What the outbox needs of an enabled endpoint: read before every write that appends an event,
 * so it is kept to the columns that decide which events the endpoint takes.
 */
export const WebhookSubscription = WebhookEndpoint.pipe(Schema.pick("id", "workspace_id", "status", "event_types"))
export type WebhookSubscription = typeof WebhookSubscription.Type

/** An endpoint takes an event when it is enabled and lists the type, or lists none (every type). */
export const endpointTakes = (endpoint: Pick<WebhookEndpoint, "status" | "event_types">, eventType: string): boolean =>
  endpoint.status === "enabled" &&
  (endpoint.event_types.length === 0 || endpoint.event_types.some((t) => t === eventType))

export const WebhookDeliveryStatuses = ["pending", "succeeded", "failed"] as const
export const WebhookDeliveryStatus = oneOf("delivery status", WebhookDeliveryStatuses)
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

const Count = Schema.Int.pipe(Schema.nonNegative()).annotations({ jsonSchema: { type: "integer", minimum: 0 } })

/**
 * One event owed to one endpoint (the outbox row). `next_attempt_at` is null once the delivery
 * is settled (succeeded or failed); `last_*` describe the most recent attempt.
 */
export const WebhookDelivery = Schema.Struct({
  id: WebhookDeliveryId,
  workspace_id: WorkspaceId,
  endpoint_id: WebhookEndpointId,
  event_id: EventId,
  event_type: Schema.String,
  status: WebhookDeliveryStatus,
  attempts: Count,
  last_attempt_at: Schema.NullOr(Schema.String),
  last_response_status: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
})
export type WebhookDelivery = typeof WebhookDelivery.Type

export const WebhookDeliveryView = WebhookDelivery.pipe(Schema.omit("workspace_id"))
export type WebhookDeliveryView = typeof WebhookDeliveryView.Type

export const toWebhookDeliveryView = ({ workspace_id: _w, ...view }: WebhookDelivery): WebhookDeliveryView => view

/** One attempt of a delivery, for the log: at most 1 KiB of the receiver's answer is kept. */
export const WebhookAttempt = Schema.Struct({
  delivery_id: WebhookDeliveryId,
  attempt: Schema.Int.pipe(Schema.positive()),
  attempted_at: Schema.String,
  response_status: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  response_excerpt: Schema.String,
  duration_ms: Schema.Number
})
export type WebhookAttempt = typeof WebhookAttempt.Type

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const decodeWith = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input: unknown): Either.Either<A, ReadonlyArray<FieldIssue>> => {
    if (!isObject(input)) return Either.left([new FieldIssue({ path: "$", message: "must be a JSON object" })])
    return Either.mapLeft(decode(input), (e) =>
      capProblems(
        ParseResult.ArrayFormatter.formatErrorSync(e).map(
          (i) => new FieldIssue({ path: formatPath(i.path), message: i._tag === "Missing" ? "is required" : i.message })
        )
      )
    )
  }
}

/** A create body, every problem listed with its path (`url`, `event_types[1]`). */
export const decodeWebhookEndpointCreate = decodeWith(WebhookEndpointCreate)
/** A patch body, every problem listed with its path. */
export const decodeWebhookEndpointPatch = decodeWith(WebhookEndpointPatch)

/**
 * A delivery as stored: the delivery and its lease. A worker claims a due delivery by setting
 * `lease_owner` and `lease_expires_at` with a compare-and-set on the values it read, so one
 * instance attempts it at a time; a lease whose holder died expires and the delivery is due again.
 */
export const WebhookDeliveryRecord = Schema.Struct({
  ...WebhookDelivery.fields,
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Schema.String)
})
export type WebhookDeliveryRecord = typeof WebhookDeliveryRecord.Type

export const toWebhookDeliveryRecordView = ({
  workspace_id: _w,
  lease_owner: _o,
  lease_expires_at: _e,
  ...view
}: WebhookDeliveryRecord): WebhookDeliveryView => view
