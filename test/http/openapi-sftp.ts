import { expect } from "bun:test"
import { Effect } from "effect"
import { WorkspaceId } from "../../lib/domain/ids.js"
import { insert } from "../../lib/ports/write.js"
import { commit } from "../../lib/rules/commit.js"
import { startTestServer, type TestServer } from "../support/server.js"
import { type Answer, type CallOptions, unknownUuid } from "./client.js"

type Hit = (on: TestServer, template: string, method: string, path: string, options?: CallOptions) => Promise<Answer>

const BASE = "/api/clearinghouse/connections"
const ONE = `${BASE}/{id}`
const ACTIVITY = `${ONE}/activity`
const RETRY = `${ONE}/pickups/{pickup_id}/retry`

export const connectionBody = {
  name: "Example clearinghouse",
  host: "sftp.example.com",
  username: "clinic",
  password: "s3cret-password",
  host_key_fingerprint: `SHA256:${"A".repeat(43)}`,
  outbound_dir: "/outbound",
  inbound_dir: "/inbound",
  archive_dir: "/archive",
  poll_every: "5m",
  upload_batches: true
}

const jsonBody = (body: string): CallOptions => ({ raw: body, headers: { "content-type": "application/json" } })

/** Drives every clearinghouse connection route through its successes and declared errors (no SFTP server: nothing connects). */
export const driveConnections = async (hit: Hit, server: TestServer) => {
  const writer = { key: server.keys.aWriter }
  const created = await hit(server, BASE, "POST", BASE, { ...writer, body: connectionBody })
  expect(created.status).toBe(201)
  expect(created.text).not.toContain("s3cret-password")
  const id: string = created.body.id
  const path = (template: string) => template.replace("{id}", id)
  expect((await hit(server, BASE, "GET", BASE, writer)).status).toBe(200)
  expect((await hit(server, BASE, "GET", `${BASE}?limit=abc`, writer)).status).toBe(400)
  expect((await hit(server, ONE, "GET", path(ONE), writer)).status).toBe(200)
  expect((await hit(server, ACTIVITY, "GET", path(ACTIVITY), writer)).status).toBe(200)
  expect((await hit(server, ACTIVITY, "GET", `${path(ACTIVITY)}?limit=0`, writer)).status).toBe(400)
  expect((await hit(server, ONE, "PATCH", path(ONE), { ...writer, body: { poll_every: "1h", enabled: false } })).status).toBe(200)
  for (const [template, method] of [[BASE, "POST"], [ONE, "PATCH"]] as const) {
    expect((await hit(server, template, method, path(template), { ...writer, ...jsonBody("{") })).status).toBe(400)
    expect((await hit(server, template, method, path(template), { ...writer, raw: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
    const bad = await hit(server, template, method, path(template), { ...writer, body: { ...connectionBody, poll_every: "25h", host_key_fingerprint: "MD5:aa" } })
    expect(bad.status).toBe(422)
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["host_key_fingerprint", "poll_every"])
  }
  // Bodies over 8 KiB are 413 (a server of its own: the shared tight one's keys are spent on rate limits).
  const small = await startTestServer({ config: { rateLimit: 0, bodyLimit: 8192 } })
  try {
    for (const [template, method] of [[BASE, "POST"], [ONE, "PATCH"]] as const) {
      const big = jsonBody(JSON.stringify({ ...connectionBody, name: "x".repeat(9000) }))
      expect((await hit(small, template, method, template.replace("{id}", unknownUuid()), { key: small.keys.aWriter, ...big })).status).toBe(413)
    }
  } finally {
    await small.close()
  }
  // A failed pickup to retry, as a poll would have recorded it.
  const pickupId = unknownUuid()
  const now = new Date().toISOString()
  await server.runtime.runPromise(
    commit({
      operation: "test",
      steps: [
        insert("clearinghouse_pickups", {
          id: pickupId,
          workspace_id: WorkspaceId.make(server.workspaces.a),
          connection_id: id,
          file_name: "broken.x12",
          size: 10,
          mtime: 1,
          seen_key: "broken.x12|10|1",
          status: "failed",
          sha256: null,
          file_id: null,
          kind: null,
          error: "not X12",
          attempts: 1,
          archived_at: null,
          created_at: now,
          updated_at: now
        })
      ]
    }).pipe(Effect.asVoid)
  )
  const retried = await hit(server, RETRY, "POST", path(RETRY).replace("{pickup_id}", pickupId), writer)
  expect(retried.status).toBe(202)
  expect(retried.body.status).toBe("pending")
  expect((await hit(server, RETRY, "POST", path(RETRY).replace("{pickup_id}", unknownUuid()), writer)).status).toBe(404)
  for (const [template, method] of [[ONE, "GET"], [ONE, "PATCH"], [ONE, "DELETE"], [ACTIVITY, "GET"], [RETRY, "POST"]] as const) {
    const other = template.replace("{id}", unknownUuid()).replace("{pickup_id}", unknownUuid())
    expect((await hit(server, template, method, other, { ...writer, ...(method === "PATCH" ? { body: {} } : {}) })).status).toBe(404)
    // Another workspace's connection is not found either.
    expect((await hit(server, template, method, path(template).replace("{pickup_id}", pickupId), { key: server.keys.b, ...(method === "PATCH" ? { body: {} } : {}) })).status).toBe(404)
    expect((await hit(server, template, method, path(template).replace("{pickup_id}", pickupId), { key: server.keys.a, ...(method === "PATCH" ? { body: {} } : {}) })).status).toBe(403)
  }
  expect((await hit(server, BASE, "POST", BASE, { key: server.keys.a, body: connectionBody })).status).toBe(403)
  expect((await hit(server, BASE, "GET", BASE, { key: server.keys.a })).status).toBe(403)
  expect((await hit(server, ONE, "DELETE", path(ONE), writer)).status).toBe(204)
  expect((await hit(server, ONE, "GET", path(ONE), writer)).status).toBe(404)
}
