import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { clearinghouseSettingsInput, exportablePayload } from "../contract/clearinghouse.contract.js"
import { api, ensureBinary, removeTemps, runCli, startBinary, tempDir } from "../support/binary.js"
import { startSftpServer, type SftpTestServer } from "../support/sftp-server.js"
import { make999 } from "../support/x12-files.js"

let sftp: SftpTestServer
beforeAll(async () => {
  ensureBinary()
  sftp = await startSftpServer()
}, 300_000)
afterAll(async () => {
  await sftp.stop()
  removeTemps()
})

const waitFor = async <A>(what: string, probe: () => A | undefined | Promise<A | undefined>, ms = 15_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

describe("encounterd binary: clearinghouse connections over SFTP", () => {
  test("the CLI manages connections (secrets never printed); the server drops a batch and picks up its 999 with ssh2 inside the binary", async () => {
    const dir = tempDir("sftp")
    const db = join(dir, "encounterd.sqlite")
    const keyFile = join(dir, "user_key")
    writeFileSync(keyFile, sftp.privateKey, { mode: 0o600 })
    const server = await startBinary({ db })
    try {
      const key = server.key!
      const help = await runCli(["clearinghouse", "connections", "--help"])
      expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("create")])
      const usage = await runCli(["clearinghouse", "connections", "create", "--workspace", "default", "--name", "x"], { db })
      expect(usage.code).not.toBe(0)
      const created = await runCli(
        [
          "clearinghouse", "connections", "create", "--workspace", "default", "--name", "Example clearinghouse",
          "--host", sftp.host, "--port", String(sftp.port), "--username", sftp.keyUser, "--private-key-file", keyFile,
          "--fingerprint", sftp.fingerprint, "--outbound-dir", sftp.remote.outbound, "--inbound-dir", sftp.remote.inbound,
          "--archive-dir", sftp.remote.archive, "--poll-every", "1s"
        ],
        { db }
      )
      expect(created.code).toBe(0)
      expect(created.stdout).not.toContain("PRIVATE KEY")
      const id: string = created.json.id
      expect(created.json).toMatchObject({ auth_method: "private_key", poll_every: "1s", upload_batches: true, enabled: true })

      expect((await api(server.url, key, "/api/workspace/clearinghouse", { method: "PUT", body: clearinghouseSettingsInput })).status).toBe(200)
      const encounter = await api(server.url, key, "/api/encounters", { body: exportablePayload("enc-sftp-1", "PCNSFTP1") })
      const claim = (await api(server.url, key, `/api/encounters/${encounter.body.encounter_id}`)).body.latest_claim_id
      const batch = await api(server.url, key, "/api/x12/837p-batches", { body: { claim_ids: [claim] } })
      expect(batch.status).toBe(201)
      const name = `837p-${String(batch.body.interchange_control_number).padStart(9, "0")}-${batch.body.id}.x12`
      await waitFor("the upload", () => (readdirSync(sftp.local.outbound).includes(name) ? true : undefined))
      const file = await fetch(`${server.url}/api/x12/837p-batches/${batch.body.id}/file`, { headers: { authorization: `Bearer ${key}` } })
      expect(readFileSync(join(sftp.local.outbound, name), "utf8")).toBe(await file.text())

      sftp.dropInbound("ack.x12", make999(900, batch.body.group_control_number, [["0001", "A"]]))
      await waitFor("the archive", () => (existsSync(join(sftp.local.archive, "ack.x12")) ? true : undefined))
      const activity = await api(server.url, key, `/api/clearinghouse/connections/${id}/activity`)
      expect(activity.body.items.map((a: { type: string; status: string }) => `${a.type}:${a.status}`).sort()).toEqual(["pickup:imported", "upload:uploaded"])
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      expect(metrics).toContain(`encounterd_clearinghouse_uploads_total{connection="${id}",outcome="uploaded"} 1`)
      expect(metrics).toContain(`encounterd_clearinghouse_pickups_total{connection="${id}",outcome="imported"} 1`)

      const shown = await runCli(["clearinghouse", "connections", "show", id], { db })
      expect(shown.code).toBe(0)
      expect(shown.json.connection.last_error).toBe(null)
      expect(shown.json.activity.length).toBe(2)
      const updated = await runCli(["clearinghouse", "connections", "update", id, "--poll-every", "1h", "--upload-batches", "false"], { db })
      expect(updated.json).toMatchObject({ poll_every: "1h", upload_batches: false })
      const listed = await runCli(["clearinghouse", "connections", "list", "--workspace", "default"], { db })
      expect(listed.json.map((c: { id: string }) => c.id)).toEqual([id])
      expect(JSON.stringify(listed.json)).not.toContain("secret")
      expect((await runCli(["clearinghouse", "connections", "delete", id], { db })).json).toEqual({ deleted: id })
      expect((await runCli(["clearinghouse", "connections", "show", id], { db })).code).toBe(1)
      // Nothing of the key was logged.
      expect(server.stdoutLines.join("\n")).not.toContain("PRIVATE KEY")
    } finally {
      await server.stop()
    }
  }, 120_000)
})
