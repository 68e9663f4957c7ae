import { readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The README's example blocks: `<!-- example: FILE -->` before a fenced block holding FILE's text,
 * `<!-- output: FILE -->` before a fenced block holding what running FILE prints.
 */
const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8")

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const block = (kind: "example" | "output", file: string): string => {
  const m = new RegExp(`<!-- ${kind}: ${escape(file)} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme)
  if (m?.[1] === undefined) throw new Error(`README has no ${kind} block for ${file}`)
  return m[1]
}

/** The files the README shows as examples, in order. */
export const readmeExamples = (): Array<string> => [...readme.matchAll(/<!-- example: (\S+) -->/g)].map((m) => m[1] ?? "")

/** The text the README shows for an example file. */
export const readmeExample = (file: string): string => block("example", file)

/** The lines the README says an example file prints (with their final newline). */
export const readmeOutput = (file: string): string => block("output", file)
