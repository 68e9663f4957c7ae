import { describe, expect, test } from "bun:test"
import { Either, Schema } from "effect"
import {
  decodeWebhookEndpointCreate,
  decodeWebhookEndpointPatch,
  endpointTakes,
  toWebhookDeliveryView,
  toWebhookEndpointView,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreated
} from "../../lib/domain/webhook.js"

const issues = (e: Either.Either<unknown, ReadonlyArray<{ readonly path: string; readonly message: string }>>) =>
  Either.isLeft(e) ? e.left.map((i) => `${i.path}: ${i.message}`) : []

describe("endpoint create input", () => {
  test("url alone; event_types and description optional", () => {
    expect(decodeWebhookEndpointCreate({ url: "https://hooks.example.com/in" })).toEqual(
      Either.right({ url: "https://hooks.example.com/in" })
    )
    const full = { url: "http://10.0.0.5:8080/x", event_types: ["ExternalApi.Encounter.Created"] as const, description: "billing" }
    expect(decodeWebhookEndpointCreate({ ...full, extra: 1 })).toEqual(Either.right(full))
  })

  test("an unknown event type is named at its index; a repeat too", () => {
    const at = (event_types: unknown) => issues(decodeWebhookEndpointCreate({ url: "https://a.example/x", event_types }))
    expect(at(["ExternalApi.Encounter.Created", "Nope"])).toEqual([
      "event_types[1]: must be one of ExternalApi.Encounter.Created, ExternalApi.Encounter.StatusUpdated, ExternalApi.Task.Created, ExternalApi.Task.Updated"
    ])
    expect(at(["ExternalApi.Encounter.StatusUpdated", "ExternalApi.Encounter.Created", "ExternalApi.Encounter.Created"])).toEqual([
      "event_types[2]: repeats an earlier entry"
    ])
    expect(at([])).toEqual([])
  })

  test("a URL that is not absolute http(s), or carries credentials, is refused at url", () => {
    const at = (url: unknown) => issues(decodeWebhookEndpointCreate({ url }))
    expect(at("/relative")).toEqual(["url: must be an absolute http or https URL"])
    expect(at("ftp://a.example/x")).toEqual(["url: must be an absolute http or https URL"])
    expect(at("javascript:alert(1)")).toEqual(["url: must be an absolute http or https URL"])
    expect(at("https://user:pw@a.example/x")).toEqual(["url: must not carry credentials (user:password@)"])
    expect(at("https://user@a.example/x")).toEqual(["url: must not carry credentials (user:password@)"])
    expect(at(`https://a.example/${"x".repeat(2100)}`)).toEqual(["url: must be at most 2048 characters"])
    expect(at(42)).toEqual(["url: must be a string"])
  })

  test("every problem at once; missing url and a non-object body", () => {
    expect(issues(decodeWebhookEndpointCreate({ event_types: "all", description: 5 }))).toEqual([
      "url: is required",
      "event_types: must be an array of event types",
      "description: must be a string"
    ])
    expect(issues(decodeWebhookEndpointCreate([]))).toEqual(["$: must be a JSON object"])
  })
})

describe("endpoint patch input", () => {
  test("every key optional; null clears the description; status is enabled or disabled", () => {
    expect(decodeWebhookEndpointPatch({})).toEqual(Either.right({}))
    expect(decodeWebhookEndpointPatch({ description: null, status: "disabled" })).toEqual(
      Either.right({ description: null, status: "disabled" })
    )
    expect(issues(decodeWebhookEndpointPatch({ status: "paused", event_types: ["X"], url: "mailto:a@b" }))).toEqual([
      "url: must be an absolute http or https URL",
      "event_types[0]: must be one of ExternalApi.Encounter.Created, ExternalApi.Encounter.StatusUpdated, ExternalApi.Task.Created, ExternalApi.Task.Updated",
      "status: must be one of enabled, disabled"
    ])
  })
})

const endpoint = Schema.decodeUnknownSync(WebhookEndpoint)({
  id: "ep_1",
  workspace_id: "ws_1",
  url: "https://a.example/x",
  event_types: [],
  description: null,
  status: "enabled",
  disabled_reason: null,
  secret: "v1.k.sealed",
  previous_secret: "v1.k.older",
  previous_secret_expires_at: "2026-01-02T00:00:00.000Z",
  failing_since: null,
  slot: 3,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z"
})

describe("views", () => {
  test("the endpoint view carries no secret, sealed or not, no workspace and no slot", () => {
    const view = toWebhookEndpointView(endpoint)
    expect(Object.keys(view).sort()).toEqual(
      ["created_at", "description", "disabled_reason", "event_types", "id", "status", "updated_at", "url"].sort()
    )
    expect(JSON.stringify(view)).not.toContain("sealed")
  })

  test("the create answer is the view plus a whsec_ secret", () => {
    const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64")
    const created = { ...toWebhookEndpointView(endpoint), secret }
    expect(String(Schema.decodeUnknownSync(WebhookEndpointCreated)(created).secret)).toBe(secret)
    expect(() => Schema.decodeUnknownSync(WebhookEndpointCreated)({ ...created, secret: "v1.k.sealed" })).toThrow()
  })

  test("the delivery view is the record without the workspace", () => {
    const delivery = Schema.decodeUnknownSync(WebhookDelivery)({
      id: "dl_1",
      workspace_id: "ws_1",
      endpoint_id: "ep_1",
      event_id: "ev_1",
      event_type: "ExternalApi.Encounter.Created",
      status: "pending",
      attempts: 0,
      last_attempt_at: null,
      last_response_status: null,
      last_error: null,
      next_attempt_at: "2026-01-01T00:00:00.000Z",
      created_at: "2026-01-01T00:00:00.000Z"
    })
    expect(toWebhookDeliveryView(delivery)).not.toHaveProperty("workspace_id")
    expect(toWebhookDeliveryView(delivery)).toHaveProperty("endpoint_id", "ep_1")
  })
})

describe("which events an endpoint takes", () => {
  test("no types means every type; a disabled endpoint takes none", () => {
    expect(endpointTakes(endpoint, "ExternalApi.Encounter.StatusUpdated")).toBe(true)
    const created = { ...endpoint, event_types: ["ExternalApi.Encounter.Created" as const] }
    expect(endpointTakes(created, "ExternalApi.Encounter.Created")).toBe(true)
    expect(endpointTakes(created, "ExternalApi.Encounter.StatusUpdated")).toBe(false)
    expect(endpointTakes({ ...endpoint, status: "disabled" }, "ExternalApi.Encounter.Created")).toBe(false)
  })
})
