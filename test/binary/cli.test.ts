import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { api, ensureBinary, removeTemps, runCli, startBinary, tempDb, tempDir } from "../support/binary.js"
import { validPayload } from "../support/payloads.js"

beforeAll(() => {
  ensureBinary()
})
afterAll(removeTemps)

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")

const expectUsageError = (r: { code: number; stdout: string; stderr: string }) => {
  expect(r.code).toBe(2)
  expect(r.stdout).toBe("")
  expect(r.stderr).toMatch(/^encounterd: \S/)
}

describe("encounterd CLI: help and usage errors", () => {
  const commands = [
    ["serve"],
    ["workspaces", "create"],
    ["workspaces", "list"],
    ["keys", "create"],
    ["keys", "list"],
    ["keys", "revoke"],
    ["claims", "set-status"],
    ["claims", "remittances"],
    ["claims", "check"],
    ["status-checks", "set"],
    ["status-checks", "show"],
    ["tasks", "list"],
    ["tasks", "show"],
    ["tasks", "update"],
    ["tasks", "settings"],
    ["claims", "correct"],
    ["claims", "list"],
    ["backup"],
    ["restore"],
    ["migrate"]
  ]
  for (const command of commands) {
    test(`${command.join(" ")} --help prints its usage and exits 0`, async () => {
      const r = await runCli([...command, "--help"])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`Usage: encounterd ${command.join(" ")}`)
      expect(r.stdout).toContain("--help")
    })
  }

  test("--help lists every command with a one-line summary, and --version; no command at all is a usage error", async () => {
    const help = await runCli(["--help"])
    expect(help.code).toBe(0)
    for (const command of [...commands, ["--version"], ["--help"]]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command.join(" ")} +\\S`, "m"))
    }
    const none = await runCli([])
    expect(none.code).toBe(2)
  })

  const groups = new Map<string, Array<string>>()
  for (const [group, sub] of commands) if (sub !== undefined) groups.set(group ?? "", [...(groups.get(group ?? "") ?? []), sub])
  for (const [group, subs] of groups) {
    test(`${group} --help lists its commands with a one-line summary and exits 0`, async () => {
      const r = await runCli([group, "--help"])
      expect(r.code).toBe(0)
      expect(r.stderr).toBe("")
      expect(r.stdout).toContain(`Usage: encounterd ${group} COMMAND`)
      for (const sub of subs) expect(r.stdout).toMatch(new RegExp(`^  ${group} ${sub} +\\S`, "m"))
      expect(r.stdout.match(/^  \S/gm)?.length).toBe(subs.length)
    })
  }

  test("a group without a command, or with an unknown one, is a usage error that points to the group's help", async () => {
    for (const argv of [["keys"], ["claims", "frobnicate"]]) {
      const r = await runCli(argv)
      expectUsageError(r)
      expect(r.stderr).toContain(`see encounterd ${argv[0]} --help`)
    }
  })

  test("--version prints the package version first (then the commit and build date: test/binary/version.test.ts)", async () => {
    const r = await runCli(["--version"])
    expect(r.code).toBe(0)
    const pkg: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "no version"
    expect(r.stdout.startsWith(`encounterd ${version} (`)).toBe(true)
  })

  test("unknown command, unknown flag, missing flag, bad scope and extra arguments exit 2", async () => {
    const db = tempDb("cli-usage")
    expectUsageError(await runCli(["frobnicate"], { db }))
    expectUsageError(await runCli(["workspaces", "frobnicate"], { db }))
    expectUsageError(await runCli(["workspaces", "list", "--bogus"], { db }))
    expectUsageError(await runCli(["workspaces", "create", "--name", "No Slug"], { db }))
    expectUsageError(await runCli(["workspaces", "create", "--slug", "no-name"], { db }))
    expectUsageError(await runCli(["keys", "create"], { db }))
    expectUsageError(await runCli(["keys", "revoke"], { db }))
    expectUsageError(await runCli(["serve", "--port", "not-a-port"], { db }))
    expectUsageError(await runCli(["serve", "--synchronous", "SOMETIMES"], { db }))
    expectUsageError(await runCli(["backup"], { db }))
    const made = await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })
    expect(made.code).toBe(0)
    expectUsageError(await runCli(["keys", "create", "--workspace", "clinic", "--scope", "superuser"], { db }))
    const keys = await runCli(["keys", "list", "--workspace", "clinic"], { db })
    expect(keys.json).toEqual([])
  })

  test("claims set-status: too few arguments, an unknown status or a missing --workspace exit 2", async () => {
    const db = tempDb("cli-claims-usage")
    const claim = "01a00000-0000-7000-8000-000000000000"
    expectUsageError(await runCli(["claims", "set-status", claim], { db }))
    expectUsageError(await runCli(["claims", "set-status", claim, "teleported", "--workspace", "clinic"], { db }))
    expectUsageError(await runCli(["claims", "set-status", claim, "paid"], { db }))
  })
})

describe("encounterd CLI: workspaces, keys, migrate, backup", () => {
  test("workspaces create / list; a duplicate slug exits 1 with a message and no stdout", async () => {
    const db = tempDb("cli-ws")
    const a = await runCli(["workspaces", "create", "--slug", "clinic-a", "--name", "Clinic A"], { db })
    expect(a.code).toBe(0)
    expect(a.json).toMatchObject({ slug: "clinic-a", name: "Clinic A" })
    expect(a.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const b = await runCli(["workspaces", "create", "--slug", "clinic-b", "--name", "Clinic B"], { db })
    expect(b.code).toBe(0)
    const dup = await runCli(["workspaces", "create", "--slug", "clinic-a", "--name", "Again"], { db })
    expect(dup.code).toBe(1)
    expect(dup.stdout).toBe("")
    expect(dup.stderr).toMatch(/^encounterd: \S/)
    expect(dup.stderr).not.toMatch(/\n\s+at /)
    const list = await runCli(["workspaces", "list"], { db })
    expect(list.code).toBe(0)
    expect(Array.isArray(list.json)).toBe(true)
    expect(list.json.map((w: { slug: string }) => w.slug).sort()).toEqual(["clinic-a", "clinic-b"])
    expect(list.json.find((w: { slug: string }) => w.slug === "clinic-a").id).toBe(a.json.id)
  })

  test("keys create / list / revoke; unknown workspace or key exits 1", async () => {
    const db = tempDb("cli-keys")
    const ws = await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })
    const plain = await runCli(["keys", "create", "--workspace", "clinic"], { db })
    expect(plain.code).toBe(0)
    expect(Object.keys(plain.json).sort()).toEqual(["id", "key", "scopes", "workspace_id"])
    expect(plain.json.key).toMatch(/^eik_[0-9A-Za-z]{32,}$/)
    expect(plain.json.workspace_id).toBe(ws.json.id)
    expect(plain.json.scopes).toEqual(["encounters"])
    const writer = await runCli(["keys", "create", "--workspace", "clinic", "--scope", "claims:write"], { db })
    expect(writer.code).toBe(0)
    expect(writer.json.scopes).toContain("claims:write")
    expect(writer.json.scopes).toContain("encounters")
    expect(writer.json.key).not.toBe(plain.json.key)

    const list = await runCli(["keys", "list", "--workspace", "clinic"], { db })
    expect(list.code).toBe(0)
    expect(list.json.map((k: { id: string }) => k.id).sort()).toEqual([plain.json.id, writer.json.id].sort())
    for (const secret of [plain.json.key, writer.json.key]) {
      expect(list.stdout).not.toContain(secret)
      expect(list.stdout).not.toContain(sha256(secret))
    }

    const revoked = await runCli(["keys", "revoke", plain.json.id], { db })
    expect(revoked.code).toBe(0)
    expect(revoked.json.id).toBe(plain.json.id)
    expect(typeof revoked.json.revoked_at).toBe("string")
    expect(revoked.stdout).not.toContain(plain.json.key)

    for (const r of [
      await runCli(["keys", "create", "--workspace", "nowhere"], { db }),
      await runCli(["keys", "list", "--workspace", "nowhere"], { db }),
      await runCli(["keys", "revoke", "01a00000-0000-7000-8000-000000000000"], { db })
    ]) {
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr).toMatch(/^encounterd: \S/)
    }
  })

  test("migrate prints the applied migrations and is idempotent; backup writes a copy and refuses to overwrite", async () => {
    const db = tempDb("cli-migrate")
    const first = await runCli(["migrate"], { db })
    expect(first.code).toBe(0)
    expect(first.json.db).toBe(db)
    expect(first.json.migrations.length).toBeGreaterThan(0)
    for (const m of first.json.migrations) {
      expect(typeof m.id).toBe("number")
      expect(typeof m.name).toBe("string")
    }
    const again = await runCli(["migrate"], { db })
    expect(again.code).toBe(0)
    expect(again.json.migrations).toEqual(first.json.migrations)

    const out = `${db}.backup`
    const backup = await runCli(["backup", "--out", out], { db })
    expect(backup.code).toBe(0)
    // The copy is checked (PRAGMA integrity_check) before the command says it is good.
    expect(backup.json).toEqual({ backup: out, db, integrity: "ok", webhook_secret_key: null })
    expect(existsSync(out)).toBe(true)
    const copy = await runCli(["migrate"], { db: out })
    expect(copy.json.migrations).toEqual(first.json.migrations)
    const twice = await runCli(["backup", "--out", out], { db })
    expect(twice.code).toBe(2)
    expect(twice.stdout).toBe("")
  })
})

describe("encounterd CLI against a running binary", () => {
  test("a revoked key gets 401; claims set-status moves a real claim, refuses an illegal move", async () => {
    const db = tempDb("cli-live")
    const server = await startBinary({ db, args: ["--rate-limit", "0"] })
    try {
      expect(server.key).toBeDefined()
      const made = await runCli(["keys", "create", "--workspace", "default"], { db })
      expect(made.code).toBe(0)
      const key: string = made.json.key
      expect((await api(server.url, key, "/api/workspace")).status).toBe(200)
      const revoked = await runCli(["keys", "revoke", made.json.id], { db })
      expect(revoked.code).toBe(0)
      const after = await fetch(`${server.url}/api/workspace`, { headers: { authorization: `Bearer ${key}` } })
      expect(after.status).toBe(401)
      expect(after.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expect((await api(server.url, server.key!, "/api/workspace")).status).toBe(200)

      const created = await api(server.url, server.key!, "/api/encounters", { body: validPayload("cli-claim-1") })
      expect(created.status).toBe(202)
      const encounter = await api(server.url, server.key!, `/encounters/${created.body.encounter_id}`)
      expect(encounter.status).toBe(200)
      const claimId: string = encounter.body.latest_claim.id
      expect(encounter.body.latest_claim.status).toBe("draft")

      const moved = await runCli(["claims", "set-status", claimId, "submitted_to_payer", "--workspace", "default", "--note", "sent"], { db })
      expect(moved.code).toBe(0)
      expect(moved.json).toMatchObject({ id: claimId, status: "submitted_to_payer", changed: true })
      const reread = await api(server.url, server.key!, `/encounters/${created.body.encounter_id}`)
      expect(reread.body.latest_claim.status).toBe("submitted_to_payer")

      const same = await runCli(["claims", "set-status", claimId, "submitted_to_payer", "--workspace", "default"], { db })
      expect(same.code).toBe(0)
      expect(same.json).toMatchObject({ id: claimId, status: "submitted_to_payer", changed: false })

      const illegal = await runCli(["claims", "set-status", claimId, "draft", "--workspace", "default"], { db })
      expect(illegal.code).toBe(1)
      expect(illegal.stdout).toBe("")
      expect(illegal.stderr).toMatch(/^encounterd: \S/)

      expectUsageError(await runCli(["claims", "set-status", claimId, "teleported", "--workspace", "default"], { db }))
      const unknownWs = await runCli(["claims", "set-status", claimId, "paid", "--workspace", "nowhere"], { db })
      expect(unknownWs.code).toBe(1)
      const otherWs = await runCli(["workspaces", "create", "--slug", "other", "--name", "Other"], { db })
      expect(otherWs.code).toBe(0)
      const foreign = await runCli(["claims", "set-status", claimId, "paid", "--workspace", "other"], { db })
      expect(foreign.code).toBe(1)
      expect(foreign.stdout).toBe("")

      const events = await api(server.url, server.key!, "/api/encounters/compat-version/events?event_types=ExternalApi.Encounter.StatusUpdated")
      expect(events.body.items.length).toBe(1)
      expect(events.body.items[0].payload).toMatchObject({ claim_id: claimId, status: "submitted_to_payer", previous_status: "draft" })
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  test("the database files hold each key's SHA-256, never its secret", async () => {
    const db = tempDb("cli-secrets")
    const server = await startBinary({ db, args: ["--rate-limit", "0"] })
    const keys: Array<string> = [server.key!]
    try {
      for (const scope of [[], ["--scope", "claims:write"]]) {
        const made = await runCli(["keys", "create", "--workspace", "default", ...scope], { db })
        expect(made.code).toBe(0)
        keys.push(made.json.key)
      }
      // Use every key, so last-used times and request records are written too.
      for (const [i, key] of keys.entries()) {
        expect((await api(server.url, key, "/api/workspace")).status).toBe(200)
        expect((await api(server.url, key, "/api/encounters", { body: validPayload(`secret-${i}`) })).status).toBe(202)
      }
      const scan = () => {
        const files = [db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f))
        expect(files.length).toBeGreaterThan(0)
        for (const key of keys) {
          for (const bytes of files) expect(bytes.indexOf(Buffer.from(key))).toBe(-1)
          expect(files.some((bytes) => bytes.indexOf(Buffer.from(sha256(key))) >= 0)).toBe(true)
        }
      }
      scan() // live: the WAL may hold the newest pages
    } finally {
      expect(await server.stop()).toBe(0)
    }
    const files = [db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f))
    for (const key of keys) {
      for (const bytes of files) expect(bytes.indexOf(Buffer.from(key))).toBe(-1)
      expect(files.some((bytes) => bytes.indexOf(Buffer.from(sha256(key))) >= 0)).toBe(true)
    }
  })
})

describe("a mistyped --db makes no database", () => {
  const reading: ReadonlyArray<ReadonlyArray<string>> = [
    ["workspaces", "list"],
    ["keys", "list", "--workspace", "default"],
    ["keys", "create", "--workspace", "default"],
    ["keys", "revoke", "01a00000-0000-7000-8000-000000000000"],
    ["claims", "set-status", "01a00000-0000-7000-8000-000000000000", "paid", "--workspace", "default"],
    ["webhooks", "list", "--workspace", "default"],
    ["webhooks", "create", "--workspace", "default", "--url", "https://example.org/hook"],
    ["webhooks", "disable", "01a00000-0000-7000-8000-000000000000"],
    ["clearinghouse", "show", "--workspace", "default"],
    ["x12", "export", "--workspace", "default", "--claims", "01a00000-0000-7000-8000-000000000000", "--out", "OUT"],
    ["backup", "--out", "OUT"]
  ]

  test("commands that read or change a database refuse a missing file: exit 1, the path, the commands that create one; no file or folder made", async () => {
    const dir = tempDir("cli-typo")
    const typo = join(dir, "data", "encounterd.sqllite")
    for (const argv of reading) {
      const r = await runCli(argv.map((a) => (a === "OUT" ? join(dir, "out.x12") : a)), { db: typo })
      expect([argv.join(" "), r.code, r.stdout]).toEqual([argv.join(" "), 1, ""])
      expect(r.stderr).toBe(
        `encounterd: No database at ${typo}; nothing was created. Check --db (or ENCOUNTERD_DB); ` +
          `a new database is made by "encounterd serve" or "encounterd migrate" (also "workspaces create")\n`
      )
    }
    expect(readdirSync(dir)).toEqual([])
    // The variable too.
    const env = await runCli(["workspaces", "list"], { env: { ENCOUNTERD_DB: typo } })
    expect([env.code, env.stderr]).toEqual([1, expect.stringContaining(`No database at ${typo}`)])
    expect(readdirSync(dir)).toEqual([])
  })

  test("migrate and workspaces create still make a new database, and the commands then open it", async () => {
    const migrated = join(tempDir("cli-typo-migrate"), "new", "encounterd.sqlite")
    expect((await runCli(["migrate"], { db: migrated })).code).toBe(0)
    expect((await runCli(["workspaces", "list"], { db: migrated })).json).toEqual([])
    const created = join(tempDir("cli-typo-create"), "encounterd.sqlite")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db: created })).code).toBe(0)
    expect((await runCli(["keys", "list", "--workspace", "clinic"], { db: created })).json).toEqual([])
    expect(existsSync(dirname(created))).toBe(true)
  })
})

describe("CLI messages", () => {
  test("an unknown flag names the nearest one; a flag without its value is named", async () => {
    const typo = await runCli(["keys", "list", "--workspce", "clinic"])
    expect([typo.code, typo.stderr]).toEqual([2, "encounterd: unknown flag --workspce; did you mean --workspace?\n"])
    const claims = await runCli(["x12", "export", "--claim", "x"])
    expect(claims.stderr).toBe("encounterd: unknown flag --claim; did you mean --claims?\n")
    const far = await runCli(["keys", "list", "--frobnicate"])
    expect([far.code, far.stderr]).toEqual([2, "encounterd: unknown flag --frobnicate; see --help\n"])
    const noValue = await runCli(["keys", "list", "--workspace"])
    expect([noValue.code, noValue.stderr]).toEqual([2, "encounterd: --workspace needs a value\n"])
  })

  test("keys revoke given the key itself says so, names its id, revokes nothing and never echoes the key", async () => {
    const db = tempDb("cli-revoke-key")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    const made = await runCli(["keys", "create", "--workspace", "clinic"], { db })
    const r = await runCli(["keys", "revoke", made.json.key], { db })
    expect([r.code, r.stdout]).toEqual([1, ""])
    expect(r.stderr).toBe(`encounterd: This is an API key (eik_…), not a key id; its id is ${made.json.id}\n`)
    expect(r.stderr).not.toContain(made.json.key)
    expect((await runCli(["keys", "list", "--workspace", "clinic"], { db })).json[0].revoked_at).toBeNull()
    const unknown = await runCli(["keys", "revoke", `eik_${"a".repeat(40)}`], { db })
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("not a key id, and no such key is stored")])
  })

  test("a file that cannot be written is one plain reason, without a doubled error code", async () => {
    const db = tempDb("cli-enoent")
    expect((await runCli(["migrate"], { db })).code).toBe(0)
    const out = join(tempDir("cli-enoent-out"), "missing", "copy.sqlite")
    const r = await runCli(["backup", "--out", out], { db })
    expect(r.code).toBe(1)
    expect(r.stderr).not.toMatch(/(E[A-Z]+): \1/)
  })
})
