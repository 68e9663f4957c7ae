import { canWriteClaims, describeError, getJson, postJson } from "./api.js"
import { h, notice, replace, table } from "./dom.js"
import { dateTime, field, list, optStr, str, statusLabel } from "./format.js"

/** What an answer did, in words. */
const effectText = (check: unknown): string => {
  const effect = field(check, "effect")
  if (effect === null || effect === undefined) return str(check, "error") || "—"
  const outcome = str(effect, "outcome")
  if (outcome === "status_changed") return `Moved from ${statusLabel(str(effect, "previous_status"))} to ${statusLabel(str(effect, "status"))}`
  if (outcome === "conflict") return `Not moved: the answer conflicts with ${statusLabel(str(effect, "status"))}`
  if (outcome === "unanswered") return "No answer about the claim (not found or an error); asked again later"
  return "Status unchanged"
}

/** The answer's STCs: category, status and entity codes, with what the category means. */
const answerText = (check: unknown) =>
  list(check, "statuses")
    .map((s) => `${[str(s, "category_code"), str(s, "status_code"), optStr(s, "entity_code")].filter((x) => x !== undefined && x !== "").join(":")} ${str(s, "meaning")}${optStr(s, "text") === undefined ? "" : ` (${str(s, "text")})`}`)
    .join("; ") || "—"

/** Categories that ask a person to act: finalized otherwise, or more information requested. */
const needsAttention = (check: unknown) => list(check, "statuses").some((s) => /^(F0|F3|F4|R\d+)/.test(str(s, "category_code")))

/**
 * The claim's status checks (276 inquiries and the payer's 277 answers), newest first, and a
 * "Check now" button for a key with claims:write. Loaded after the page, so the rest shows at once.
 */
export const statusChecksSection = (claimId: string, lastCheckedAt: string | undefined) => {
  const body = h("div", {}, h("p", { class: "help" }, "Loading status checks…"))
  const path = `/console/api/claims/${encodeURIComponent(claimId)}/status-checks`
  const status = h("div", { role: "status" })
  const load = async () => {
    try {
      const page = await getJson(`${path}?limit=20`)
      const items = list(page, "items")
      replace(
        body,
        h("p", {}, lastCheckedAt === undefined ? "The payer has not answered a status inquiry about this claim yet." : `Last answered by the payer: ${dateTime(lastCheckedAt)}.`),
        items.length === 0
          ? h("p", { class: "help" }, "No status check yet.")
          : table(
              "Status inquiries of this claim and the payer's answers, newest first",
              ["Asked", "Transport", "State", "Answer", "Effect"],
              items.map((c) => [
                dateTime(str(c, "created_at")),
                str(c, "transport"),
                needsAttention(c) ? h("strong", {}, `${str(c, "status")} · needs attention`) : str(c, "status"),
                answerText(c),
                effectText(c)
              ])
            )
      )
    } catch (e) {
      replace(body, notice("error", ...describeError(e)))
    }
  }
  const button = h("button", { type: "button" }, "Check now")
  button.addEventListener("click", () => {
    button.disabled = true
    postJson(path, {})
      .then(() => {
        replace(status, notice("ok", "Status check queued."))
        return load()
      })
      .catch((e: unknown) => replace(status, notice("error", ...describeError(e))))
      .finally(() => {
        button.disabled = false
      })
  })
  void load()
  return h(
    "section",
    { "aria-labelledby": "checks-title" },
    h("h2", { id: "checks-title" }, "Status checks"),
    body,
    canWriteClaims() ? h("div", {}, button, status) : h("p", { class: "help" }, "Asking the payer needs a key with the scope claims:write.")
  )
}
