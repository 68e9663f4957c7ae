import { describe, expect, test } from "bun:test"
import { Either } from "effect"
import { Webhook } from "standardwebhooks"
import { SCHEMA_VERSION, toEvent, toFeedEvent } from "../../lib/domain/event.js"
import { EventId, WorkspaceId } from "../../lib/domain/ids.js"
import { SealedSecret, WebhookEndpointId } from "../../lib/domain/webhook.js"
import { webhookMessage } from "../../lib/webhooks/message.js"
import { issueSecret, openSecrets, ROTATION_OVERLAP_MS, rotateSecrets, signingSecrets } from "../../lib/webhooks/rotation.js"
import { newSecretBoxKey } from "../../lib/webhooks/secret-box.js"
import { newSecret, secretBytes, sign, signedHeaders, signOne } from "../../lib/webhooks/signature.js"

const body = JSON.stringify({ id: "evt_1", payload: { status: "created", note: "ünïcode ✓" } })
const now = () => Math.floor(Date.now() / 1000)

describe("signing secrets", () => {
  test("whsec_ followed by standard padded base64 of 32 bytes, different every time", () => {
    const a = newSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(secretBytes(a)).toHaveLength(32)
    expect(newSecret()).not.toBe(a)
  })
})

describe("webhook-signature, checked with the standardwebhooks package", () => {
  test("one secret: the package verifies and returns the payload", () => {
    const secret = newSecret()
    const headers = signedHeaders({ id: "msg_1", timestamp: now(), body, secrets: [secret] })
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  test("the same bytes as the package's own signer", () => {
    const secret = newSecret()
    const ts = now()
    expect(signOne("msg_2", ts, body, secret)).toBe(new Webhook(secret).sign("msg_2", new Date(ts * 1000), body))
  })

  test("a changed body, id or timestamp no longer verifies", () => {
    const secret = newSecret()
    const ts = now()
    const headers = signedHeaders({ id: "msg_3", timestamp: ts, body, secrets: [secret] })
    const wh = new Webhook(secret)
    expect(() => wh.verify(body + " ", headers)).toThrow("No matching signature found")
    expect(() => wh.verify(body, { ...headers, "webhook-id": "msg_4" })).toThrow("No matching signature found")
    expect(() => wh.verify(body, { ...headers, "webhook-timestamp": String(ts + 1) })).toThrow("No matching signature found")
  })

  test("during a rotation both the new and the old secret verify; a third does not", () => {
    const [fresh, old] = [newSecret(), newSecret()]
    const headers = signedHeaders({ id: "msg_5", timestamp: now(), body, secrets: [fresh, old] })
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2)
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow("No matching signature found")
  })

  test("sign joins one entry per secret with a space", () => {
    const [a, b] = [newSecret(), newSecret()]
    expect(sign({ id: "m", timestamp: 1700000000, body, secrets: [a, b] })).toBe(
      `${signOne("m", 1700000000, body, a)} ${signOne("m", 1700000000, body, b)}`
    )
  })
})

describe("rotation", () => {
  const key = newSecretBoxKey()
  const t0 = Date.parse("2026-01-01T00:00:00Z")

  test("after a rotation the old secret signs for 24 hours, then only the new one", () => {
    const issued = issueSecret("ep_1", key)
    const id = WebhookEndpointId.make("ep_1")
    const endpoint = { id, secret: issued.sealed, previous_secret: null, previous_secret_expires_at: null }
    expect(signingSecrets(endpoint, t0)).toEqual([issued.sealed])
    const rotated = rotateSecrets(endpoint, key, t0)
    const after = { id, ...rotated.fields }
    expect(after.previous_secret).toBe(issued.sealed)
    expect(signingSecrets(after, t0 + ROTATION_OVERLAP_MS - 1)).toEqual([rotated.fields.secret, issued.sealed])
    expect(signingSecrets(after, t0 + ROTATION_OVERLAP_MS)).toEqual([rotated.fields.secret])
    const opened = openSecrets("ep_1", signingSecrets(after, t0), key)
    expect(opened).toEqual(Either.right([rotated.secret, issued.secret]))
  })

  test("a sealed secret does not open for another endpoint, nor under another key", () => {
    const issued = issueSecret("ep_1", key)
    expect(Either.isLeft(openSecrets("ep_2", [issued.sealed], key))).toBe(true)
    expect(Either.isLeft(openSecrets("ep_1", [issued.sealed], newSecretBoxKey()))).toBe(true)
    expect(Either.isLeft(openSecrets("ep_1", [SealedSecret.make("v1.abc.def")], key))).toBe(true)
  })
})

describe("the message of an event", () => {
  test("the webhook-id is the event id; the body is the feed's event as compact JSON", () => {
    const record = {
      id: EventId.make("0190c2a0-0000-7000-8000-000000000009"),
      workspace_id: WorkspaceId.make("0190c2a0-0000-7000-8000-000000000001"),
      event_type: "ExternalApi.Encounter.Created" as const,
      created_at: "2026-01-01T00:00:00.000Z",
      timestamp: "2026-01-01T00:00:00.000Z",
      payload: { encounter_id: "e", external_id: "x", claim_id: "c", status: "created" }
    }
    const message = webhookMessage(toFeedEvent({ seq: 1, ...record }))
    expect(message.id).toBe(record.id)
    expect(message.body).toBe(JSON.stringify(toEvent(record)))
    expect(JSON.parse(message.body)).toEqual({
      id: record.id,
      created_at: record.created_at,
      timestamp: record.timestamp,
      event_type: "ExternalApi.Encounter.Created",
      schema_version: SCHEMA_VERSION,
      payload: record.payload
    })
  })
})
