/**
 * A small, strict parser of the Prometheus text format (0.0.4), for the metrics tests: it throws
 * on anything the format does not allow, so a test that parses a scrape also checks its syntax.
 */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly help: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly samples: Array<Sample>
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*"
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`)
const TYPES: ReadonlyArray<Family["type"]> = ["counter", "gauge", "histogram", "summary", "untyped"]
const isType = (t: string): t is Family["type"] => TYPES.some((x) => x === t)

const parseValue = (s: string, line: string): number => {
  if (s === "+Inf") return Infinity
  if (s === "-Inf") return -Infinity
  if (s === "NaN") return NaN
  if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) throw new Error(`bad value in: ${line}`)
  return Number(s)
}

/** `a="x",b="y\"z"`: names, then quoted values with the three escapes the format defines. */
const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  let i = 0
  while (i < text.length) {
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))?.[0]
    if (name === undefined || text[i + name.length] !== "=" || text[i + name.length + 1] !== '"') throw new Error(`bad label in: ${line}`)
    i += name.length + 2
    let value = ""
    for (;;) {
      const c = text[i]
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`)
      if (c === '"') break
      if (c === "\n") throw new Error(`raw line feed in a label value: ${line}`)
      if (c === "\\") {
        const next = text[i + 1]
        if (next === "\\") value += "\\"
        else if (next === '"') value += '"'
        else if (next === "n") value += "\n"
        else throw new Error(`bad escape in: ${line}`)
        i += 2
      } else {
        value += c
        i += 1
      }
    }
    i += 1
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`)
    labels[name] = value
    if (text[i] === ",") i += 1
    else if (i !== text.length) throw new Error(`expected , between labels in: ${line}`)
  }
  return labels
}

const familyOf = (sample: string, families: Map<string, Family>): Family | undefined => {
  const direct = families.get(sample)
  if (direct !== undefined) return direct
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sample.endsWith(suffix)) continue
    const f = families.get(sample.slice(0, -suffix.length))
    if (f !== undefined && (f.type === "histogram" || f.type === "summary")) return f
  }
  return undefined
}

export const parsePrometheus = (text: string): Map<string, Family> => {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a line feed")
  const families = new Map<string, Family>()
  const helps = new Map<string, string>()
  const seen = new Set<string>()
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line)
    if (help !== null) {
      if (helps.has(help[1]!)) throw new Error(`HELP twice for ${help[1]}`)
      helps.set(help[1]!, help[2]!)
      continue
    }
    const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(line)
    if (type !== null) {
      const [, name, t] = type
      if (t === undefined || !isType(t)) throw new Error(`unknown type: ${line}`)
      if (families.has(name!)) throw new Error(`TYPE twice for ${name}`)
      families.set(name!, { name: name!, help: helps.get(name!) ?? "", type: t, samples: [] })
      continue
    }
    if (line.startsWith("#")) continue
    const m = SAMPLE.exec(line)
    if (m === null) throw new Error(`not a sample line: ${line}`)
    const family = familyOf(m[1]!, families)
    if (family === undefined) throw new Error(`sample before its TYPE line: ${line}`)
    const labels = m[2] === undefined ? {} : parseLabels(m[2], line)
    const key = `${m[1]}${JSON.stringify(Object.entries(labels).sort())}`
    if (seen.has(key)) throw new Error(`duplicate series: ${line}`)
    seen.add(key)
    family.samples.push({ name: m[1]!, labels, value: parseValue(m[3]!, line) })
  }
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f)
  return families
}

/** Buckets ascending by `le` and cumulative, ending with `+Inf` equal to `_count`, and a `_sum`. */
const checkHistogram = (f: Family) => {
  const series = new Map<string, { buckets: Array<{ le: number; v: number }>; count?: number; sum?: number }>()
  for (const s of f.samples) {
    const { le, ...rest } = s.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: bucket without le`)
      entry.buckets.push({ le: parseValue(le, le), v: s.value })
    } else if (s.name === `${f.name}_count`) entry.count = s.value
    else if (s.name === `${f.name}_sum`) entry.sum = s.value
    else throw new Error(`${f.name}: unexpected sample ${s.name}`)
  }
  for (const [key, e] of series) {
    if (e.count === undefined || e.sum === undefined) throw new Error(`${f.name}${key}: no _count or _sum`)
    const last = e.buckets[e.buckets.length - 1]
    if (last === undefined || last.le !== Infinity || last.v !== e.count) throw new Error(`${f.name}${key}: no +Inf bucket equal to _count`)
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i]!.le > e.buckets[i - 1]!.le)) throw new Error(`${f.name}${key}: le not ascending`)
      if (e.buckets[i]!.v < e.buckets[i - 1]!.v) throw new Error(`${f.name}${key}: buckets not cumulative`)
    }
  }
}

/** The value of one series, or undefined when absent. */
export const sampleValue = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined => {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue
      const keys = Object.keys(s.labels)
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value
    }
  }
  return undefined
}
