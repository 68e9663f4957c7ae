#!/usr/bin/env bun
import { Cause, Runtime } from "effect"
import { VERSION } from "../server/api.js"
import { helpText, parse, UsageError } from "./args.js"
import { commands } from "./commands.js"
import { serve, serveSpec } from "./serve.js"

const topHelp = `encounterd ${VERSION}: encounter intake and claim status service

Usage: encounterd COMMAND [options]   (each command has --help)

Commands:
  serve                      Run the HTTP API
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(26)} ${c.spec.summary.split(".")[0]}`)
  .join("\n")}

Output: JSON on stdout, messages on stderr; exit 0 on success, 1 on failure, 2 on a usage error.
`

/** Domain failures carry a tag and a message; show those, never a stack. */
const describe = (e: unknown): string => {
  if (e instanceof UsageError) return e.message
  if (Runtime.isFiberFailure(e)) {
    const cause = e[Runtime.FiberFailureCauseId]
    const failure = Cause.failureOption(cause)
    if (failure._tag === "Some") {
      const f = failure.value
      if (typeof f === "object" && f !== null && "message" in f) return String(f.message)
    }
    return Cause.pretty(cause).split("\n")[0] ?? "failed"
  }
  return e instanceof Error ? e.message : String(e)
}

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [first, second] = argv
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(topHelp)
    return first === undefined ? 2 : 0
  }
  if (first === "--version") {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  if (first === "serve") {
    const parsed = parse(serveSpec, argv.slice(1))
    if (parsed === "help") {
      process.stdout.write(helpText(serveSpec))
      return 0
    }
    return serve(parsed)
  }
  const name = commands[first] !== undefined ? first : `${first} ${second ?? ""}`
  const command = commands[name]
  if (command === undefined) throw new UsageError(`unknown command: ${argv.slice(0, 2).join(" ")}; see encounterd --help`)
  const rest = argv.slice(name.split(" ").length)
  const parsed = parse(command.spec, rest)
  if (parsed === "help") {
    process.stdout.write(helpText(command.spec))
    return 0
  }
  const result = await command.run(parsed)
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`encounterd: ${describe(e)}\n`)
    process.exit(e instanceof UsageError ? 2 : 1)
  }
)
