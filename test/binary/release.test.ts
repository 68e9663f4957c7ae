import { createHash } from "node:crypto"
import { existsSync, openSync, readdirSync, readFileSync, readSync, closeSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import pkg from "../../package.json" with { type: "json" }
import { artifactName, targets } from "../../scripts/release.js"
import { removeTemps, tempDir } from "../support/binary.js"

/**
 * `npm run release` end to end, into a temp directory: four artifacts with their SHA256SUMS, the
 * linux-x64 one run here, the linux-arm64 one under qemu-user. Bun fetches the cross-compilation
 * runtimes from the npm registry once and caches them.
 */
const root = resolve(import.meta.dir, "../..")
let out: string
beforeAll(() => {
  out = tempDir("release")
  const r = Bun.spawnSync([process.execPath, "scripts/release.ts", "--out", out], { cwd: root, stdout: "pipe", stderr: "pipe" })
  if (r.exitCode !== 0) throw new Error(`release failed (${r.exitCode}):\n${r.stderr.toString()}`)
}, 240_000)
afterAll(removeTemps)

const head = (file: string, n: number): Buffer => {
  const fd = openSync(file, "r")
  try {
    const buf = Buffer.alloc(n)
    readSync(fd, buf, 0, n, 0)
    return buf
  } finally {
    closeSync(fd)
  }
}

const VERSION_LINE = new RegExp(`^encounterd ${pkg.version.replace(/\./g, "\\.")} \\(commit [0-9a-f]{4,40}, built \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z\\)\\n$`)

/** qemu-user for aarch64 and a directory holding an aarch64 glibc (Debian: libc6-arm64-cross). */
const qemu = (() => {
  const bin = Bun.which("qemu-aarch64") ?? Bun.which("qemu-aarch64-static")
  const sysroot = [process.env.QEMU_LD_PREFIX, "/usr/aarch64-linux-gnu", "/"].find(
    (d) => d !== undefined && d !== "" && existsSync(join(d, "lib/ld-linux-aarch64.so.1"))
  )
  return bin !== null && sysroot !== undefined ? { bin, sysroot } : undefined
})()

describe("npm run release", () => {
  test("writes the four artifacts and nothing else but SHA256SUMS", () => {
    const expected = targets.map((t) => artifactName(t))
    expect(expected).toEqual([
      `encounterd-${pkg.version}-linux-x64`,
      `encounterd-${pkg.version}-linux-arm64`,
      `encounterd-${pkg.version}-darwin-arm64`,
      `encounterd-${pkg.version}-windows-x64.exe`
    ])
    expect(readdirSync(out).sort()).toEqual([...expected, "SHA256SUMS"].sort())
  })

  test("each artifact is an executable of its platform", () => {
    const elfMachine = (f: string) => head(f, 20).readUInt16LE(18)
    expect(head(join(out, artifactName(targets[0])), 4).toString("latin1")).toBe("\x7fELF")
    expect(elfMachine(join(out, artifactName(targets[0])))).toBe(62) // x86-64
    expect(elfMachine(join(out, artifactName(targets[1])))).toBe(183) // AArch64
    const macho = head(join(out, artifactName(targets[2])), 8)
    expect(macho.readUInt32LE(0)).toBe(0xfeedfacf) // 64-bit Mach-O
    expect(macho.readUInt32LE(4)).toBe(0x0100000c) // CPU_TYPE_ARM64
    expect(head(join(out, artifactName(targets[3])), 2).toString("latin1")).toBe("MZ")
  })

  test("SHA256SUMS lists every artifact with its digest, in sha256sum's format", async () => {
    const lines = readFileSync(join(out, "SHA256SUMS"), "utf8").trimEnd().split("\n")
    expect(lines.length).toBe(targets.length)
    for (const line of lines) {
      const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line)
      if (m === null) throw new Error(`not a sha256sum line: ${line}`)
      expect(createHash("sha256").update(readFileSync(join(out, m[2]!))).digest("hex")).toBe(m[1]!)
    }
    if (Bun.which("sha256sum") !== null) {
      const check = Bun.spawn(["sha256sum", "--check", "--strict", "SHA256SUMS"], { cwd: out, stdout: "pipe", stderr: "pipe" })
      expect(await check.exited).toBe(0)
    }
  }, 120_000)

  test("the linux-x64 artifact runs: --version", () => {
    const r = Bun.spawnSync([join(out, artifactName(targets[0])), "--version"], { stdout: "pipe", stderr: "pipe" })
    expect(r.exitCode).toBe(0)
    expect(r.stdout.toString()).toMatch(VERSION_LINE)
  })

  if (qemu !== undefined) {
    test(`the linux-arm64 artifact runs under ${qemu.bin}: --version`, () => {
      const r = Bun.spawnSync([qemu.bin, "-L", qemu.sysroot, join(out, artifactName(targets[1])), "--version"], { stdout: "pipe", stderr: "pipe" })
      if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}: ${r.stderr.toString()}`)
      expect(r.stdout.toString()).toMatch(VERSION_LINE)
    }, 120_000)
  } else {
    // Named so that a run without qemu says so; in CI the missing emulator is a failure.
    test("qemu-aarch64 or an aarch64 glibc is missing: the linux-arm64 artifact was not run (apt-get install qemu-user libc6-arm64-cross)", () => {
      expect(process.env.CI).toBeUndefined()
    })
  }
})
