#!/usr/bin/env node
// `npx encounterd ...` in a clone (after `npm install`): runs the CLI from its sources, bin/main.ts,
// on the Bun of devDependencies (or on the Bun that runs this file). Node 20 or later suffices.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const main = join(root, "bin", "main.ts")

/** The `bun` package's executable (bin/bun.exe on every platform), once its install script has put it there. */
const localBun = () => {
  if (process.versions.bun !== undefined) return process.execPath
  try {
    const exe = join(dirname(createRequire(join(root, "package.json")).resolve("bun/package.json")), "bin", "bun.exe")
    return existsSync(exe) ? exe : undefined
  } catch {
    return undefined
  }
}

// The package as installed from a tarball holds the library only (package.json "files").
if (!existsSync(main)) {
  process.stderr.write("encounterd: the CLI runs from a clone of the repository (npx encounterd) or as the release binary; this package holds the library only\n")
  process.exit(1)
}

const bun = localBun()
if (bun === undefined) {
  process.stderr.write("encounterd: Bun is not installed here; run npm install in the clone (bun is one of its devDependencies)\n")
  process.exit(1)
}

const child = spawn(bun, [main, ...process.argv.slice(2)], { stdio: "inherit" })
// A service manager or a terminal signals this process; the server is the child.
const signals = ["SIGINT", "SIGTERM", "SIGHUP"]
for (const signal of signals) process.on(signal, () => child.kill(signal))
child.on("error", (e) => {
  process.stderr.write(`encounterd: cannot run ${bun}: ${e.message}\n`)
  process.exit(1)
})
child.on("exit", (code, signal) => {
  if (signal !== null) {
    for (const s of signals) process.removeAllListeners(s)
    process.kill(process.pid, signal)
    return
  }
  process.exit(code ?? 1)
})
