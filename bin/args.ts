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

/**
 * The first flag of `argv` (before a `--` that ends the flags) that is none of `options`, as
 * written (`--workspce`, `-w`). The word after a string flag is its value, whatever it looks like.
 */
const unknownFlag = (argv: ReadonlyArray<string>, options: Record<string, { readonly type: "string" | "boolean" }>): string | undefined => {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") return undefined
    if (!arg.startsWith("-") || arg === "-") continue
    const [flag = "", value] = arg.split("=", 2)
    const option = flag.startsWith("--") ? options[flag.slice(2)] : undefined
    if (option === undefined) return flag
    if (option.type === "string" && value === undefined) i++
  }
  return undefined
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`. */
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    }
    previous = row
  }
  return previous[b.length]!
}

/** The known flag a mistyped one most likely meant: the nearest, when at most a third of its letters (at least 1) differ. */
export const nearestFlag = (name: string, known: ReadonlyArray<string>): string | undefined => {
  let best: { readonly flag: string; readonly d: number } | undefined
  for (const flag of known) {
    const d = editDistance(name, flag)
    if (best === undefined || d < best.d) best = { flag, d }
  }
  return best !== undefined && best.d <= Math.max(1, Math.floor(name.length / 3)) ? best.flag : undefined
}

/** Parses flags strictly (unknown flags are usage errors); environment variables fill what flags leave unset. */
export const parse = (spec: CommandSpec, argv: ReadonlyArray<string>): Parsed | "help" => {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { help: { type: "boolean" } }
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = o.multiple === true ? { type: o.type, multiple: true } : { type: o.type }
  }
  const unknown = unknownFlag(argv, options)
  if (unknown !== undefined) {
    const name = unknown.replace(/^-+/, "")
    // `-w` is no flag of ours; the one long flag it starts is what it most likely meant.
    const starting = Object.keys(options).filter((flag) => flag.startsWith(name))
    const near = !unknown.startsWith("--") && starting.length === 1 ? starting[0] : nearestFlag(name, Object.keys(options))
    throw new UsageError(`unknown flag ${unknown}; ${near !== undefined ? `did you mean --${near}?` : "see --help"}`)
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    // "Option '--db <value>' argument missing" in the CLI's words.
    const missing = /^Option '(--[^ ']+)[^']*' argument missing/.exec(message)
    throw new UsageError(missing !== null ? `${missing[1]} needs a value` : message)
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
