/**
 * `npm run release`: cross-compiles encounterd for every supported platform into `dist/release/`
 * (or `--out DIR`) as `encounterd-<version>-<os>-<arch>[.exe]`, with a `SHA256SUMS` file in the
 * format `sha256sum -c` reads. Every artifact carries the same commit and build time.
 *
 * Bun downloads each target's runtime from the npm registry on first use and caches it
 * (~/.bun/install/cache); bytecode is accepted for every target (Bun 1.4).
 */
import { createHash } from "node:crypto"
import { createReadStream, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { parseArgs } from "node:util"
import pkg from "../package.json" with { type: "json" }
import { buildArgs, root } from "./build-args.js"

export const targets = [
  { os: "linux", arch: "x64" },
  { os: "linux", arch: "arm64" },
  { os: "darwin", arch: "arm64" },
  { os: "windows", arch: "x64" }
] as const

export const artifactName = (t: (typeof targets)[number], version = pkg.version): string =>
  `encounterd-${version}-${t.os}-${t.arch}${t.os === "windows" ? ".exe" : ""}`

const sha256 = (file: string): Promise<string> =>
  new Promise((done, fail) => {
    const hash = createHash("sha256")
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => done(hash.digest("hex")))
      .on("error", fail)
  })

const main = async () => {
  const { values } = parseArgs({ options: { out: { type: "string" } }, strict: true })
  const out = resolve(root, values.out ?? "dist/release")
  mkdirSync(out, { recursive: true })
  for (const f of readdirSync(out)) if (f.startsWith("encounterd-") || f === "SHA256SUMS") rmSync(join(out, f))
  const built = new Date().toISOString().replace(/\.\d{3}Z$/, "Z")
  const lines: Array<string> = []
  for (const t of targets) {
    const file = join(out, artifactName(t))
    const started = performance.now()
    const result = Bun.spawnSync([process.execPath, ...buildArgs({ outfile: file, target: `bun-${t.os}-${t.arch}`, built })], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe"
    })
    if (result.exitCode !== 0) {
      process.stderr.write(result.stdout.toString() + result.stderr.toString())
      throw new Error(`building ${basename(file)} failed (exit ${result.exitCode})`)
    }
    lines.push(`${await sha256(file)}  ${basename(file)}`)
    process.stderr.write(`built ${basename(file)} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
  }
  writeFileSync(join(out, "SHA256SUMS"), `${lines.join("\n")}\n`)
  process.stdout.write(`${JSON.stringify({ out, version: pkg.version, built, artifacts: lines.map((l) => l.split("  ")[1]) })}\n`)
}

if (import.meta.main) {
  main().catch((e: unknown) => {
    process.stderr.write(`release: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  })
}
