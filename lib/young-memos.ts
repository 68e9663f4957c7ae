/**
 * Memos of large values that are worth keeping only briefly, forgotten right before each young
 * collection the server paces (`server/heap-pacer.ts`), so that what they held dies young.
 *
 * A value that outlives one young collection is moved to the old generation, which only a full
 * collection frees, together with what it owns outside the heap. A list's page remembered to be
 * answered again (some 250 KB) is such a value: under creates, its list's first page changes many
 * times a second, and each page replaced was most often still remembered at the next young
 * collection, and waited for a full one. Forgotten at each young collection instead, a page lives
 * at most one interval (25 ms under load); a page read over and over is made again once an interval.
 *
 * Without a pacer (the library embedded elsewhere), nothing forgets: memos keep what their own
 * bounds allow.
 */
const forgetters = new Set<() => void>()

/** Registers `forget`, called by `forgetYoungMemos`; answers its removal. */
export const registerYoungMemo = (forget: () => void): (() => void) => {
  forgetters.add(forget)
  return () => {
    forgetters.delete(forget)
  }
}

/** Forgets what every registered memo holds: called right before a young collection. */
export const forgetYoungMemos = (): void => {
  for (const forget of forgetters) forget()
}
