/**
 * A small metrics registry rendered in the Prometheus text exposition format (0.0.4): counters,
 * gauges and histograms with fixed buckets. Label values must come from closed sets (route
 * templates, methods, statuses, outcomes): a value taken from a request would let callers grow the
 * registry without bound and would carry their data into the scraper's storage.
 */
type Labels = Readonly<Record<string, string>>

interface Family {
  readonly name: string
  readonly help: string
  readonly type: "counter" | "gauge" | "histogram"
  readonly render: () => ReadonlyArray<string>
}

export interface Counter {
  readonly inc: (labels?: Labels, by?: number) => void
  /** The series of one label set, found once: what a hot path keeps instead of naming its labels on every call. */
  readonly series: (labels: Labels) => { readonly inc: (by?: number) => void }
}

export interface Gauge {
  readonly set: (value: number, labels?: Labels) => void
}

export interface Histogram {
  readonly observe: (value: number, labels?: Labels) => void
  /** The series of one label set, found once (as `Counter.series`). */
  readonly series: (labels: Labels) => { readonly observe: (value: number) => void }
}

const NEEDS_ESCAPE = /[\\"\n]/
/** Label values escaped as the format requires: backslash, double quote and line feed. */
export const escapeLabelValue = (v: string): string =>
  // Most values (routes, methods, statuses) need no escape: tested once, not replaced three times.
  NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v

const escapeHelp = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const labelText = (labels: Labels): string => {
  const keys = Object.keys(labels)
  if (keys.length === 0) return ""
  return `{${keys.map((k) => `${k}="${escapeLabelValue(labels[k]!)}"`).join(",")}}`
}

const formatValue = (v: number): string =>
  Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v)

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const checkLabels = (labels: Labels) => {
  for (const k of Object.keys(labels)) if (!LABEL.test(k) || k.startsWith("__")) throw new Error(`invalid label name ${k}`)
}

/**
 * The key of a label set: names and values between separators no name has and no value of ours
 * (route templates, methods, statuses, outcomes) holds. Built on every observation, so it is plain
 * concatenation rather than the rendered text.
 */
const seriesKey = (labels: Labels): string => {
  let key = ""
  for (const k in labels) key += `${k}\u0000${labels[k]}\u0001`
  return key
}

/** Series of one family, keyed by their label set (label order is the caller's, kept stable). */
const seriesMap = <S>(make: (labels: Labels) => S) => {
  const series = new Map<string, { readonly labels: Labels; readonly state: S }>()
  return {
    get: (labels: Labels): S => {
      const key = seriesKey(labels)
      const found = series.get(key)
      if (found !== undefined) return found.state
      checkLabels(labels)
      const state = make(labels)
      series.set(key, { labels, state })
      return state
    },
    entries: () => [...series.values()]
  }
}

export interface Registry {
  readonly counter: (name: string, help: string) => Counter
  readonly gauge: (name: string, help: string, collect?: () => number) => Gauge
  readonly histogram: (name: string, help: string, buckets: ReadonlyArray<number>) => Histogram
  /** The whole registry in the text format, families in registration order. */
  readonly render: () => string
}

export const makeRegistry = (): Registry => {
  const families: Array<Family> = []
  const register = (family: Family) => {
    if (!NAME.test(family.name)) throw new Error(`invalid metric name ${family.name}`)
    if (families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} registered twice`)
    families.push(family)
  }

  const counter = (name: string, help: string): Counter => {
    const series = seriesMap(() => ({ value: 0 }))
    register({ name, help, type: "counter", render: () => series.entries().map((s) => `${name}${labelText(s.labels)} ${formatValue(s.state.value)}`) })
    const add = (state: { value: number }, by: number) => {
      if (by < 0) throw new Error("a counter only goes up")
      state.value += by
    }
    return {
      inc: (labels = {}, by = 1) => add(series.get(labels), by),
      series: (labels) => {
        const state = series.get(labels)
        return { inc: (by = 1) => add(state, by) }
      }
    }
  }

  const gauge = (name: string, help: string, collect?: () => number): Gauge => {
    const series = seriesMap(() => ({ value: 0 }))
    if (collect !== undefined) series.get({})
    register({
      name,
      help,
      type: "gauge",
      render: () => {
        if (collect !== undefined) series.get({}).value = collect()
        return series.entries().map((s) => `${name}${labelText(s.labels)} ${formatValue(s.state.value)}`)
      }
    })
    return {
      set: (value, labels = {}) => {
        series.get(labels).value = value
      }
    }
  }

  const histogram = (name: string, help: string, buckets: ReadonlyArray<number>): Histogram => {
    const bounds = [...buckets].sort((a, b) => a - b)
    if (bounds.length === 0 || new Set(bounds).size !== bounds.length) throw new Error(`histogram ${name}: buckets must be distinct`)
    const series = seriesMap(() => ({ counts: new Array<number>(bounds.length).fill(0), count: 0, sum: 0 }))
    register({
      name,
      help,
      type: "histogram",
      render: () =>
        series.entries().flatMap(({ labels, state }) => {
          // Stored per bucket; rendered cumulative, as the format requires.
          let cumulative = 0
          const lines = bounds.map((le, i) => {
            cumulative += state.counts[i]!
            return `${name}_bucket${labelText({ ...labels, le: formatValue(le) })} ${cumulative}`
          })
          lines.push(`${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${state.count}`)
          lines.push(`${name}_sum${labelText(labels)} ${formatValue(state.sum)}`)
          lines.push(`${name}_count${labelText(labels)} ${state.count}`)
          return lines
        })
    })
    const record = (s: { readonly counts: Array<number>; count: number; sum: number }, value: number) => {
      s.count += 1
      s.sum += value
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          s.counts[i] = (s.counts[i] ?? 0) + 1
          return
        }
      }
    }
    return {
      observe: (value, labels = {}) => record(series.get(labels), value),
      series: (labels) => {
        const state = series.get(labels)
        return { observe: (value) => record(state, value) }
      }
    }
  }

  const render = () =>
    families
      .map((f) => [`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`, ...f.render()].join("\n"))
      .join("\n")
      .concat("\n")

  return { counter, gauge, histogram, render }
}
