/**
 * The `bun build --compile` command line of every encounterd binary (`npm run build`, the release,
 * the binary test suites), with the commit and build time baked in (server/build-info.ts).
 */
import { execFileSync } from "node:child_process"
import { resolve } from "node:path"

export const root = resolve(import.meta.dir, "..")

const gitCommit = (): string => {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] }).toString().trim()
    return /^[0-9a-f]{4,40}$/.test(commit) ? commit : "unknown"
  } catch {
    return "unknown"
  }
}

export interface BuildOptions {
  readonly outfile: string
  /** `bun-linux-arm64` and so on; the host's platform when absent. */
  readonly target?: string
  /** Bytecode is only produced for the host's own platform (see scripts/release.ts). */
  readonly bytecode?: boolean
  readonly commit?: string
  readonly built?: string
}

export const buildArgs = (o: BuildOptions): Array<string> => [
  "build",
  "--compile",
  "--minify",
  ...(o.bytecode === false ? [] : ["--bytecode"]),
  ...(o.target !== undefined ? [`--target=${o.target}`] : []),
  "--define",
  `ENCOUNTERD_COMMIT=${JSON.stringify(o.commit ?? gitCommit())}`,
  "--define",
  `ENCOUNTERD_BUILT=${JSON.stringify(o.built ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z"))}`,
  "bin/main.ts",
  "--outfile",
  o.outfile
]
