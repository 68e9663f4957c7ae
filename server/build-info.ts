import { execFileSync } from "node:child_process"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import pkg from "../package.json" with { type: "json" }

/**
 * Set by `bun build --define` (scripts/build-args.ts) when the binary is compiled; absent when
 * running from source.
 */
declare const ENCOUNTERD_COMMIT: string | undefined
declare const ENCOUNTERD_BUILT: string | undefined

export const VERSION: string = pkg.version

export interface BuildInfo {
  readonly version: string
  /** Short git commit the binary was built from, or `unknown`. */
  readonly commit: string
  /** ISO 8601 build time, or `unknown` (from source). */
  readonly built: string
}

/** The checkout's commit, for runs from source; `unknown` outside a git checkout or without git. */
const sourceCommit = (): string => {
  try {
    const out = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000
    })
    const commit = out.toString().trim()
    return /^[0-9a-f]{4,40}$/.test(commit) ? commit : "unknown"
  } catch {
    return "unknown"
  }
}

let cached: BuildInfo | undefined

export const buildInfo = (): BuildInfo =>
  (cached ??= {
    version: VERSION,
    commit: typeof ENCOUNTERD_COMMIT === "string" ? ENCOUNTERD_COMMIT : sourceCommit(),
    built: typeof ENCOUNTERD_BUILT === "string" ? ENCOUNTERD_BUILT : "unknown"
  })

/** `encounterd 0.1.0 (commit abc1234, built 2026-11-23T10:00:00Z)`: the `--version` line. */
export const versionLine = (): string => {
  const b = buildInfo()
  return `encounterd ${b.version} (commit ${b.commit}, built ${b.built})`
}
