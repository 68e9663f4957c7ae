import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readmeExamples, readmeOutput } from "../support/readme.js"
import { reuseSqliteAddon, writeScratchProject } from "../support/scratch-install.js"

/**
 * The library as a user gets it: `npm pack` (which builds dist/lib through `prepare`), the tarball
 * installed with `effect` in a fresh project outside the repository, and the README's examples run
 * there with `node` (and the Effect one with Bun), type-checked against the package's declarations.
 */
const repo = join(import.meta.dir, "..", "..")
const dir = mkdtempSync(join(tmpdir(), "encounterd-pack-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * Under `npm test` the environment carries npm's settings for the repository (npm_config_local_prefix,
 * npm_package_*): the scratch project's npm must not inherit them. The cache location stays, so that
 * an offline install finds what the repository's install stored.
 */
const env: Record<string, string> = {}
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && (!key.toLowerCase().startsWith("npm_") || /^npm_config_(cache|registry)$/i.test(key))) env[key] = value
}

const run = async (cmd: ReadonlyArray<string>, cwd: string) => {
  const proc = Bun.spawn([...cmd], { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

const expectOk = (r: { stdout: string; stderr: string; code: number }, what: string) => {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
}

beforeAll(async () => {
  expectOk(await run(["npm", "pack", "--pack-destination", dir], repo), "npm pack")
  const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"))
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${dir}`)
  writeScratchProject({ repo, dir, tarball })
  const install = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
  const offline = await run([...install, "--offline"], dir)
  // Every tarball is in the npm cache once the repository is installed with npm; should the cache
  // have been cleared since, the registry fills it again.
  if (offline.code !== 0 && offline.stderr.includes("ENOTCACHED")) expectOk(await run([...install, "--prefer-offline"], dir), "npm ci")
  else expectOk(offline, "npm ci --offline")
  reuseSqliteAddon(repo, dir)
  for (const file of readmeExamples().filter((f) => f.startsWith("examples/"))) copyFileSync(join(repo, file), join(dir, file.replace(/^.*\//, "")))
}, 300_000)

describe("the packed library installed in a fresh project", () => {
  test("the package holds the compiled library and its declarations, not the repository's tests or server", () => {
    const pkg = join(dir, "node_modules", "encounterd")
    for (const entry of ["index", "promise", "sqlite-node", "sqlite-bun", "postgres"]) {
      expect(existsSync(join(pkg, "dist", "lib", `${entry}.js`))).toBe(true)
      expect(existsSync(join(pkg, "dist", "lib", `${entry}.d.ts`))).toBe(true)
    }
    // npm always packs package.json's bin: the shim of `npx encounterd` in a clone, alone.
    expect(readdirSync(pkg).sort()).toEqual(["README.md", "SECURITY.md", "bin", "dist", "examples", "lib", "package.json"])
    expect(readdirSync(join(pkg, "bin"))).toEqual(["encounterd.mjs"])
    expect(existsSync(join(dir, "node_modules", "effect", "package.json"))).toBe(true)
  })

  test("the encounterd command of the installed package says the CLI runs from a clone or the release binary", async () => {
    const r = await run(["node", join(dir, "node_modules", "encounterd", "bin", "encounterd.mjs"), "--help"], dir)
    expect([r.code, r.stdout]).toEqual([1, ""])
    expect(r.stderr).toContain("the CLI runs from a clone of the repository (npx encounterd) or as the release binary")
  })

  for (const file of readmeExamples().filter((f) => f.startsWith("examples/"))) {
    const name = file.replace(/^.*\//, "")
    test(`node ${name} prints what the README shows`, async () => {
      const r = await run(["node", name], dir)
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(readmeOutput(file))
    })
  }

  test("bun effect.mjs prints what the README shows (Bun loads the package's TypeScript sources)", async () => {
    const r = await run([process.execPath, "effect.mjs"], dir)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(readmeOutput("examples/effect.mjs"))
  })

  test("the examples type-check against the package's declarations, as a user's TypeScript sees them", async () => {
    const config = {
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        strict: true,
        noEmit: true,
        allowJs: true,
        checkJs: true,
        skipLibCheck: true,
        // Node's own types from the repository: the scratch project installs only what the library needs.
        typeRoots: [join(repo, "node_modules", "@types")],
        types: ["node"]
      },
      include: ["*.mjs"]
    }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2))
    const r = await run(["node", join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], dir)
    expect(r.stdout).toBe("")
    expect(r.code).toBe(0)
  }, 120_000)
})
