#!/usr/bin/env bun
import { Cause, Runtime } from "effect"
import { VERSION, versionLine } from "../server/build-info.js"
import { groupHelpText, groupOf, helpText, parse, summaryLine, UsageError } from "./args.js"
import { commands } from "./commands.js"
import { serve, serveSpec } from "./serve.js"

const commandList = [["serve", serveSpec] as const, ...Object.entries(commands).map(([name, c]) => [name, c.spec] as const)]

const topHelp = `encounterd ${VERSION}: encounter intake and claim status service

Usage: encounterd COMMAND [options]   (each command, and each group such as "keys", has --help)

Commands:
${commandList.map(([name, spec]) => `  ${name.padEnd(26)} ${summaryLine(spec)}`).join("\n")}
  ${"--version".padEnd(26)} Print the version
  ${"--help".padEnd(26)} Show this help

Output: JSON on stdout, messages on stderr; exit 0 on success, 1 on failure, 2 on a usage error
(x12 export: 3 when the batch was sent but its file could not be named; the message says where it is).
`

const isHelp = (arg: string | undefined): boolean => arg === "--help" || arg === "-h" || arg === "help"

/** The commands of a group such as `keys`, in the order they are declared. */
const groupMembers = (group: string) => commandList.filter(([name]) => groupOf(name) === group)

/** What failed: a command's typed failure, or a defect a layer made of one (an unusable database), or the error itself. */
const failureOf = (e: unknown): unknown => {
  if (!Runtime.isFiberFailure(e)) return e
  const cause = e[Runtime.FiberFailureCauseId]
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failure.value
  const died = Cause.dieOption(cause)
  return died._tag === "Some" ? died.value : e
}

/** Domain failures carry a tag and a message; show those, never a stack. */
const describe = (e: unknown): string => {
  const reason = failureOf(e)
  if (typeof reason === "object" && reason !== null && "message" in reason && typeof reason.message === "string") return reason.message
  if (Runtime.isFiberFailure(reason)) return Cause.pretty(reason[Runtime.FiberFailureCauseId]).split("\n")[0] ?? "failed"
  return String(reason)
}

/** 2 for usage errors, a failure's own code when it has one (x12 export's 3), else 1. */
const exitCode = (e: unknown): number => {
  if (e instanceof UsageError) return 2
  const reason = failureOf(e)
  return typeof reason === "object" && reason !== null && "exitCode" in reason && typeof reason.exitCode === "number" ? reason.exitCode : 1
}

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [first, second] = argv
  if (first === undefined || isHelp(first)) {
    process.stdout.write(topHelp)
    return first === undefined ? 2 : 0
  }
  if (first === "--version") {
    process.stdout.write(`${versionLine()}\n`)
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
  // A command is named by up to three words (`clearinghouse connections create`); the longest that names one.
  const named = [3, 2, 1].map((n) => argv.slice(0, n).join(" ")).find((n) => commands[n] !== undefined && n.split(" ").length <= argv.length)
  if (named === undefined) {
    const group = [2, 1].map((n) => argv.slice(0, n).join(" ")).find((g) => groupMembers(g).length > 0)
    if (group !== undefined) {
      const members = groupMembers(group)
      const next = argv[group.split(" ").length]
      if (isHelp(next)) {
        process.stdout.write(groupHelpText(group, members))
        return 0
      }
      const names = members.map(([name]) => name.slice(group.length + 1)).join(", ")
      if (next === undefined) throw new UsageError(`${group} needs a command (${names}); see encounterd ${group} --help`)
      throw new UsageError(`unknown command: ${group} ${next} (${group} has ${names}); see encounterd ${group} --help`)
    }
  }
  const name = named ?? `${first} ${second ?? ""}`
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
    process.exit(exitCode(e))
  }
)
