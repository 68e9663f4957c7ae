/**
 * A scratch project that installs the packed library the way a user does (`npm install` of the
 * tarball plus `effect`), but offline and quickly: it gets a lock file holding the repository's
 * own versions of everything the library needs, so `npm ci --offline` takes every tarball from
 * the npm cache the repository's install filled (no package metadata is needed), and better-sqlite3
 * gets the addon already compiled for this Node instead of compiling it again (about 2 minutes).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createHash } from "node:crypto"
import { join } from "node:path"
import { Schema } from "effect"

const Deps = Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
const LockEntry = Schema.Struct({
  version: Schema.String,
  integrity: Schema.optional(Schema.String),
  license: Schema.optional(Schema.String),
  dependencies: Deps,
  peerDependencies: Deps,
  peerDependenciesMeta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Struct({ optional: Schema.optional(Schema.Boolean) }) })),
  engines: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  bin: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  hasInstallScript: Schema.optional(Schema.Boolean)
})
type LockEntry = typeof LockEntry.Type
const Lock = Schema.Struct({ packages: Schema.Record({ key: Schema.String, value: LockEntry }) })
const Manifest = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  license: Schema.optional(Schema.String),
  dependencies: Deps,
  peerDependencies: Deps,
  devDependencies: Deps,
  engines: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
export type Manifest = typeof Manifest.Type

const readJson = <A, I>(schema: Schema.Schema<A, I>, file: string): A =>
  Schema.decodeUnknownSync(schema)(JSON.parse(readFileSync(file, "utf8")))

export const readManifest = (file: string): Manifest => readJson(Manifest, file)

/** Where Node finds `name` from the package at `from` (a lock path such as `node_modules/a/node_modules/b`). */
const locate = (packages: Record<string, LockEntry>, from: string, name: string): string | undefined => {
  let base = from
  for (;;) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`
    if (packages[candidate] !== undefined) return candidate
    if (base === "") return undefined
    const cut = base.lastIndexOf("/node_modules/")
    base = cut < 0 ? "" : base.slice(0, cut)
  }
}

/** The lock entries the roots need, with every required dependency and non-optional peer (optional ones are left out). */
const closure = (packages: Record<string, LockEntry>, roots: ReadonlyArray<string>): Record<string, LockEntry> => {
  const picked: Record<string, LockEntry> = {}
  const visit = (from: string, name: string) => {
    const path = locate(packages, from, name)
    if (path === undefined) throw new Error(`the repository's lock file has no ${name} (needed from ${from || "the root"})`)
    if (picked[path] !== undefined) return
    const entry = packages[path]
    if (entry === undefined) return
    picked[path] = entry
    const optional = entry.peerDependenciesMeta ?? {}
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(path, dep)
    for (const peer of Object.keys(entry.peerDependencies ?? {})) if (optional[peer]?.optional !== true) visit(path, peer)
  }
  for (const root of roots) visit("", root)
  return picked
}

/** Writes package.json and package-lock.json of a project depending on `tarball` (in `dir`) and `effect`. */
export const writeScratchProject = (options: { readonly repo: string; readonly dir: string; readonly tarball: string }): Manifest => {
  const { repo, dir, tarball } = options
  const lib = readManifest(join(repo, "package.json"))
  const packages = readJson(Lock, join(repo, "package-lock.json")).packages
  const effect = lib.devDependencies?.effect ?? lib.peerDependencies?.effect ?? "missing"
  const needed = [...Object.keys(lib.dependencies ?? {}), ...Object.keys(lib.peerDependencies ?? {})]
  const file = `file:${tarball}`
  const manifest = { name: "scratch", version: "1.0.0", private: true, type: "module", dependencies: { effect, [lib.name]: file } }
  const integrity = `sha512-${createHash("sha512").update(readFileSync(join(dir, tarball))).digest("base64")}`
  const self = {
    version: lib.version,
    resolved: file,
    integrity,
    license: lib.license,
    dependencies: lib.dependencies,
    peerDependencies: lib.peerDependencies,
    engines: lib.engines
  }
  const lock = {
    name: "scratch",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "scratch", version: "1.0.0", dependencies: manifest.dependencies }, [`node_modules/${lib.name}`]: self, ...closure(packages, needed) }
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`)
  return lib
}

/** The repository's compiled better-sqlite3 addon, copied into the scratch install (same version, same Node). */
export const reuseSqliteAddon = (repo: string, dir: string): void => {
  const relative = join("node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")
  const source = join(repo, relative)
  if (!existsSync(source)) throw new Error(`no compiled better-sqlite3 at ${source}: run npm ci in the repository first`)
  mkdirSync(join(dir, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true })
  copyFileSync(source, join(dir, relative))
}
