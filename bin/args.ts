import { parseArgs } from "node:util"

/** A command-line usage mistake: the message goes to stderr and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

export interface CommandSpec {
  readonly usage: string
  readonly summary: string
  readonly options: Record<string, { readonly type: "string" | "boolean"; readonly multiple?: boolean; readonly env?: string; readonly help: string }>
  readonly positionals?: ReadonlyArray<string>
}

export interface Parsed {
  readonly values: Record<string, string | boolean | Array<string> | undefined>
  readonly positionals: ReadonlyArray<string>
}

export const helpText = (spec: CommandSpec): string => {
  const lines = [`Usage: ${spec.usage}`, "", spec.summary, "", "Options:"]
  for (const [name, o] of Object.entries(spec.options)) {
    const flag = o.type === "string" ? `--${name} VALUE` : `--${name}`
    lines.push(`  ${flag.padEnd(24)} ${o.help}${o.env !== undefined ? ` (env ${o.env})` : ""}`)
  }
  lines.push(`  ${"--help".padEnd(24)} Show this help`)
  return `${lines.join("\n")}\n`
}

/** A command's summary up to its first full stop: the one line the command lists show. */
export const summaryLine = (spec: CommandSpec): string => spec.summary.split(". ")[0]?.replace(/\.$/, "") ?? spec.summary

/** The commands of a group (the words before the last one of a command name, e.g. `keys`). */
export const groupOf = (name: string): string | undefined => {
  const words = name.split(" ")
  return words.length > 1 ? words.slice(0, -1).join(" ") : undefined
}

/** The help of a command group (`encounterd keys --help`): its subcommands, one line each. */
export const groupHelpText = (group: string, members: ReadonlyArray<readonly [string, CommandSpec]>): string => {
  const width = Math.max(...members.map(([name]) => name.length)) + 2
  const lines = [`Usage: encounterd ${group} COMMAND [options]   (each command has --help)`, "", "Commands:"]
  for (const [name, spec] of members) lines.push(`  ${name.padEnd(width)} ${summaryLine(spec)}`)
  lines.push("", `Run "encounterd ${group} COMMAND --help" for a command's options.`)
  return `${lines.join("\n")}\n`
}

/** Parses flags strictly (unknown flags are usage errors); environment variables fill what flags leave unset. */
export const parse = (spec: CommandSpec, argv: ReadonlyArray<string>): Parsed | "help" => {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { help: { type: "boolean" } }
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = o.multiple === true ? { type: o.type, multiple: true } : { type: o.type }
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e))
  }
  if (parsed.values.help === true) return "help"
  const values: Record<string, string | boolean | Array<string> | undefined> = {}
  for (const [name, o] of Object.entries(spec.options)) {
    const v = parsed.values[name]
    values[name] = v === undefined && o.env !== undefined ? process.env[o.env] : Array.isArray(v) ? v.map(String) : v
  }
  const expected = spec.positionals ?? []
  if (parsed.positionals.length !== expected.length) {
    throw new UsageError(`expected ${expected.length === 0 ? "no arguments" : expected.join(" ")}; see --help`)
  }
  return { values, positionals: parsed.positionals }
}

export const str = (p: Parsed, name: string): string | undefined => {
  const v = p.values[name]
  return typeof v === "string" ? v : undefined
}

export const required = (p: Parsed, name: string): string => {
  const v = str(p, name)
  if (v === undefined || v === "") throw new UsageError(`--${name} is required`)
  return v
}

export const int = (p: Parsed, name: string, min: number): number | undefined => {
  const v = str(p, name)
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}`)
  return n
}
