import { randomBytes } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { afterAll, describe, expect, test } from "bun:test"
import { ensureBinary, removeTemps, runCli, tempDir } from "../support/binary.js"

/** deploy/: the systemd units parse and hold the settings operations rely on; the backup wrapper works. */
const root = resolve(import.meta.dir, "../..")
const deploy = join(root, "deploy")
const UNITS = ["encounterd.service", "encounterd-backup.service", "encounterd-backup.timer"]
afterAll(removeTemps)

/** A unit file as section -> key -> values (a key may repeat); comments and blank lines dropped. */
const parseUnit = (text: string): Map<string, Map<string, Array<string>>> => {
  const sections = new Map<string, Map<string, Array<string>>>()
  let current: Map<string, Array<string>> | undefined
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const section = /^\[([A-Za-z]+)\]$/.exec(line)
    if (section !== null) {
      current = new Map()
      sections.set(section[1]!, current)
      continue
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line)
    if (kv === null || current === undefined) throw new Error(`line ${i + 1} is not key=value inside a section: ${raw}`)
    current.set(kv[1]!, [...(current.get(kv[1]!) ?? []), kv[2]!])
  }
  return sections
}

const unit = (name: string) => parseUnit(readFileSync(join(deploy, name), "utf8"))
const value = (u: ReturnType<typeof parseUnit>, section: string, key: string) => u.get(section)?.get(key)?.at(-1)

describe("deploy/ systemd units", () => {
  test("encounterd.service: own user, read-only system, a 0700 state directory, restart on failure, SIGTERM stop", () => {
    const u = unit("encounterd.service")
    const expected: Record<string, string> = {
      User: "encounterd",
      ProtectSystem: "strict",
      StateDirectory: "encounterd",
      StateDirectoryMode: "0700",
      Restart: "on-failure",
      KillSignal: "SIGTERM",
      NoNewPrivileges: "yes",
      PrivateTmp: "yes",
      ProtectHome: "yes"
    }
    for (const [k, v] of Object.entries(expected)) expect(`${k}=${value(u, "Service", k)}`).toBe(`${k}=${v}`)
    expect(value(u, "Service", "TimeoutStopSec")).toMatch(/^\d+s$/)
    // The server forces its exit after 9 s: systemd must wait longer before its SIGKILL.
    expect(Number(value(u, "Service", "TimeoutStopSec")!.slice(0, -1))).toBeGreaterThan(9)
    expect(value(u, "Service", "ExecStart")).toBe("/usr/local/bin/encounterd serve --db /var/lib/encounterd/encounterd.sqlite")
    expect(value(u, "Install", "WantedBy")).toBe("multi-user.target")
  })

  test("the backup pair: a oneshot as the same user into the state directory, on a persistent daily timer", () => {
    const s = unit("encounterd-backup.service")
    expect(value(s, "Service", "Type")).toBe("oneshot")
    expect(value(s, "Service", "User")).toBe("encounterd")
    expect(value(s, "Service", "ProtectSystem")).toBe("strict")
    expect(value(s, "Service", "ExecStart")).toBe(
      "/usr/local/lib/encounterd/encounterd-backup /var/lib/encounterd/encounterd.sqlite /var/lib/encounterd/backups"
    )
    const t = unit("encounterd-backup.timer")
    expect(value(t, "Timer", "OnCalendar")).toBeDefined()
    expect(value(t, "Timer", "Persistent")).toBe("true")
    expect(value(t, "Install", "WantedBy")).toBe("timers.target")
  })

  const analyze = Bun.which("systemd-analyze")
  if (analyze !== null) {
    test("systemd-analyze verify accepts the units without a warning", () => {
      // Verify checks that executables exist: point the units at the test binary and this checkout's wrapper.
      const dir = tempDir("units")
      for (const name of UNITS) {
        const text = readFileSync(join(deploy, name), "utf8")
          .replaceAll("/usr/local/bin/encounterd", ensureBinary())
          .replaceAll("/usr/local/lib/encounterd/encounterd-backup", join(deploy, "encounterd-backup"))
        writeFileSync(join(dir, name), text)
      }
      const r = Bun.spawnSync([analyze, "verify", ...UNITS.map((n) => join(dir, n))], { stdout: "pipe", stderr: "pipe" })
      expect(r.stderr.toString() + r.stdout.toString()).toBe("")
      expect(r.exitCode).toBe(0)
    })
  } else {
    test("systemd-analyze is not installed: the units were checked by the key tests above only", () => {
      expect(process.env.CI).toBeUndefined()
    })
  }
})

describe("deploy/encounterd-backup", () => {
  test("writes a dated copy and removes copies past the retention, never others", async () => {
    const dir = tempDir("backups")
    const db = join(tempDir("backup-db"), "encounterd.sqlite")
    expect((await runCli(["workspaces", "create", "--slug", "clinic", "--name", "Clinic"], { db })).code).toBe(0)
    const key = `${randomBytes(32).toString("base64")}\n`
    writeFileSync(join(dirname(db), "webhook-secret.key"), key, { mode: 0o600 })
    const old = join(dir, "encounterd-20200101T000000Z.sqlite")
    const oldKey = `${old}.webhook-secret.key`
    const recent = join(dir, "encounterd-20200102T000000Z.sqlite")
    const recentKey = `${recent}.webhook-secret.key`
    const other = join(dir, "notes.txt")
    for (const f of [old, oldKey, recent, recentKey, other]) writeFileSync(f, "x")
    const day = 86_400
    const now = Date.now() / 1000
    utimesSync(old, now - 30 * day, now - 30 * day)
    utimesSync(recent, now - 2 * day, now - 2 * day)
    utimesSync(other, now - 30 * day, now - 30 * day)

    const r = Bun.spawnSync([join(deploy, "encounterd-backup"), db, dir], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ENCOUNTERD_BIN: ensureBinary(), ENCOUNTERD_BACKUP_KEEP_DAYS: "14" },
      stdout: "pipe",
      stderr: "pipe"
    })
    expect(r.stderr.toString()).toBe("")
    expect(r.exitCode).toBe(0)
    const made = readdirSync(dir).filter((f) => /^encounterd-\d{8}T\d{6}Z\.sqlite$/.test(f) && !f.startsWith("encounterd-2020"))
    expect(made.length).toBe(1)
    expect(r.stdout.toString()).toContain(`wrote ${join(dir, made[0]!)}`)
    // The webhook secret key is kept beside the copy, owner-only.
    const keyCopy = join(dir, `${made[0]!}.webhook-secret.key`)
    expect([readFileSync(keyCopy, "utf8"), statSync(keyCopy).mode & 0o777]).toEqual([key, 0o600])
    expect(existsSync(old)).toBe(false)
    expect(existsSync(oldKey)).toBe(false)
    expect(existsSync(recent)).toBe(true)
    expect(existsSync(recentKey)).toBe(true)
    expect(existsSync(other)).toBe(true)
    // The copy is a database the CLI opens, with the workspace in it.
    const listed = await runCli(["workspaces", "list"], { db: join(dir, made[0]!) })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain('"clinic"')
  })
})
