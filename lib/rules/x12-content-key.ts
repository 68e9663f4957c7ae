import { createHash } from "node:crypto"
import type { Interchange } from "../x12/read/interchange.js"
import { PACE, type Paced } from "../x12/read/paced.js"

/**
 * What makes two uploads the same file: the SHA-256 of their envelopes' control numbers and their
 * segments, element by element, so the same content with other line breaks (or delimiters) is the
 * same file, and a file under a reused control number with other content is not.
 */
export function* contentKeyPaced(interchange: Interchange): Paced<string> {
  const hash = createHash("sha256")
  for (const e of interchange.envelopes) hash.update(`ISA\x1d${e.sender_id}\x1d${e.receiver_id}\x1d${e.control_number}\x1e`)
  let n = 0
  for (const g of interchange.groups) {
    hash.update(`GS\x1d${g.functional_id}\x1d${g.sender_id}\x1d${g.receiver_id}\x1d${g.control_number}\x1d${g.version}\x1e`)
    for (const set of g.transaction_sets) {
      hash.update(`ST\x1d${set.id}\x1d${set.control_number}\x1e`)
      for (const s of set.segments) {
        hash.update(s.id)
        for (const e of s.elements) hash.update(`\x1d${e.split(s.componentSeparator).join("\x1f")}`)
        hash.update("\x1e")
        if (++n % PACE === 0) yield
      }
    }
  }
  return `content:${hash.digest("hex")}`
}
