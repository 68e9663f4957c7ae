/**
 * Where a server's CPU went during a window of wall-clock time, from the Chrome-format profile
 * `bun --cpu-prof` writes (`.cpuprofile`: nodes, samples, time deltas; its times are epoch µs).
 *
 * The Markdown profile (`--cpu-prof-md`) weighs each sample by the time since the one before, so
 * a sample taken after the process sat idle (waiting for a request, for an fsync, a sleep) carries
 * that idle time: on a server that is not under constant load its self times name the function
 * that happened to run after a pause. Here each sample counts for at most a sampling interval or
 * so, and only the samples inside the window count.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const load = (path: string): CpuProfile => {
  const p: unknown = JSON.parse(readFileSync(path, "utf8"))
  if (typeof p !== "object" || p === null || !("nodes" in p) || !("samples" in p) || !("timeDeltas" in p) || !("startTime" in p)) {
    throw new Error(`${path}: not a .cpuprofile`)
  }
  return p as CpuProfile
}

/** A phase of the work: the first whose pattern matches a frame of a sample's stack (`name where:line`) takes the sample. */
export type Phase = readonly [label: string, frame: RegExp]

/** A phase's share of a window. */
export interface PhaseShare {
  readonly label: string
  readonly ms: number
  /** The phase's functions by self time, highest first. */
  readonly self: ReadonlyArray<readonly [string, number]>
}

/**
 * A wait between two samples longer than this (µs) is a gap: the sampler records nothing while the
 * thread waits (for I/O, an fsync, a timer) or while the OS runs something else on its core.
 */
const GAP_US = 10_000

/** Back-to-back samples of one phase: from the first to the last, in ms from the window's start. */
export interface Segment {
  readonly label: string
  readonly from: number
  readonly to: number
}

/** What a window's samples add up to, in milliseconds of sampled CPU. */
export interface WindowProfile {
  readonly sampledMs: number
  readonly samples: number
  /** Per phase label ("other": no phase matched), highest first. */
  readonly phases: ReadonlyArray<PhaseShare>
  /** The phases in time order, with "gap" for more than 10 ms without a sample. */
  readonly timeline: ReadonlyArray<Segment>
  /** Functions by self time: [name and place, ms], highest first. */
  readonly self: ReadonlyArray<readonly [string, number]>
  /** The project's own functions (under `root`, outside node_modules) by total time (on the stack). */
  readonly total: ReadonlyArray<readonly [string, number]>
}

/**
 * The samples of `file` taken between `fromMs` and `toMs` (epoch milliseconds), each weighing
 * its time delta capped at twice the profile's median delta.
 */
export const profileWindow = (file: string, fromMs: number, toMs: number, root: string, phases: ReadonlyArray<Phase> = []): WindowProfile => {
  const p = load(file)
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const sorted = [...p.timeDeltas].sort((a, b) => a - b)
  const cap = 2 * (sorted[Math.floor(sorted.length / 2)] ?? 1000)
  const path = (f: CallFrame) => f.url.replace(/^file:\/\//, "")
  const place = (f: CallFrame): string => {
    const where = f.url === "" ? "native" : path(f).startsWith(root) ? relative(root, path(f)) : path(f).replace(/^.*node_modules\//, "")
    return `${f.functionName === "" ? "(anonymous)" : f.functionName} ${where}${f.lineNumber >= 0 && f.url !== "" ? `:${f.lineNumber + 1}` : ""}`
  }
  const own = (f: CallFrame) => path(f).startsWith(root) && !f.url.includes("node_modules")
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  const byPhase = new Map<string, Map<string, number>>()
  const timeline: Array<{ label: string; from: number; to: number }> = []
  let at = p.startTime
  let sampledUs = 0
  let count = 0
  p.samples.forEach((id, i) => {
    const delta = p.timeDeltas[i] ?? 0
    at += delta
    if (at < fromMs * 1000 || at > toMs * 1000) return
    const node = byId.get(id)
    if (node === undefined || node.callFrame.functionName === "(idle)") return
    const weight = Math.min(delta, cap)
    sampledUs += weight
    count++
    self.set(place(node.callFrame), (self.get(place(node.callFrame)) ?? 0) + weight)
    const stack: Array<string> = []
    const seen = new Set<string>()
    for (let n: ProfileNode | undefined = node; n !== undefined; n = byId.get(parent.get(n.id) ?? -1)) {
      const key = place(n.callFrame)
      stack.push(key)
      if (!own(n.callFrame) || seen.has(key)) continue
      seen.add(key)
      total.set(key, (total.get(key) ?? 0) + weight)
    }
    const phase = phases.find(([, re]) => stack.some((f) => re.test(f)))?.[0] ?? "other"
    const phaseSelf = byPhase.get(phase) ?? new Map<string, number>()
    byPhase.set(phase, phaseSelf)
    phaseSelf.set(stack[0] ?? "", (phaseSelf.get(stack[0] ?? "") ?? 0) + weight)
    // A sample stands for the interval before it (at most the cap); a longer wait is a gap.
    const end = at / 1000 - fromMs
    const current = timeline[timeline.length - 1]
    if (delta > GAP_US && current !== undefined) timeline.push({ label: "gap", from: current.to, to: end - weight / 1000 })
    const last = timeline[timeline.length - 1]
    if (last !== undefined && last.label === phase) last.to = end
    else timeline.push({ label: phase, from: end - weight / 1000, to: end })
  })
  const ranked = (m: Map<string, number>) => [...m].map(([k, us]) => [k, us / 1000] as const).sort((a, b) => b[1] - a[1])
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / 1000
  return {
    sampledMs: sampledUs / 1000,
    samples: count,
    phases: [...byPhase].map(([label, m]) => ({ label, ms: sum(m), self: ranked(m) })).sort((a, b) => b.ms - a.ms),
    timeline,
    self: ranked(self),
    total: ranked(total)
  }
}
