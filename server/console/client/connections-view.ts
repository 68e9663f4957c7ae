import { getJson } from "./api.js"
import { h, table } from "./dom.js"
import { dateTime, list, num, optStr, str } from "./format.js"

const orDash = (s: string | null) => (s === null || s === "" ? "—" : s)

/** One entry of a connection's activity as a table row: when, what, the file, how it went. */
const activityRow = (a: unknown) => {
  const upload = str(a, "type") === "upload"
  const status = str(a, "status")
  const error = upload ? optStr(a, "last_error") : optStr(a, "error")
  const good = status === "uploaded" || status === "imported" || status === "duplicate"
  return [
    h("span", { class: "nowrap" }, dateTime(str(a, "at"))),
    upload ? `upload (${str(a, "batch_kind")})` : `pickup${optStr(a, "kind") === null ? "" : ` (${str(a, "kind")})`}`,
    h("code", {}, str(a, "file_name")),
    h("span", { class: `outcome ${good ? "accepted" : status === "failed" ? "rejected" : ""}` }, status),
    String(num(a, "attempts")),
    orDash(error)
  ]
}

/** Each SFTP connection: its state and alerts, and its ten latest uploads and pickups. */
export const connectionsSection = async () => {
  const page = await getJson("/console/api/clearinghouse/connections?limit=10")
  const connections = await Promise.all(
    list(page, "items").map(async (c) => {
      const id = encodeURIComponent(str(c, "id"))
      const [full, activity] = await Promise.all([
        getJson(`/console/api/clearinghouse/connections/${id}`),
        getJson(`/console/api/clearinghouse/connections/${id}/activity?limit=10`)
      ])
      return { full, activity: list(activity, "items") }
    })
  )
  return h(
    "section",
    { "aria-labelledby": "connections-title" },
    h("h2", { id: "connections-title" }, "SFTP connections"),
    connections.length === 0
      ? h("p", { class: "empty" }, "No connection: batches and files are carried by hand (API or CLI).")
      : h(
          "div",
          {},
          ...connections.map(({ full, activity }) =>
            h(
              "article",
              { class: "connection" },
              h("h3", {}, `${str(full, "name")} (${str(full, "host")})`),
              h(
                "p",
                {},
                `Last success: ${optStr(full, "last_success_at") === null ? "never" : dateTime(str(full, "last_success_at"))}. `,
                `Batches waiting to be uploaded: ${num(full, "pending_uploads")}. `,
                optStr(full, "last_error") === null ? "" : h("span", { class: "outcome rejected" }, `Last error: ${str(full, "last_error")}`)
              ),
              ...list(full, "alerts").map((alert) => h("p", { class: "outcome rejected", role: "status" }, str(alert, "message"))),
              activity.length === 0
                ? h("p", { class: "empty" }, "No uploads or pickups yet.")
                : table(`Latest uploads and pickups of ${str(full, "name")}`, ["When", "What", "File", "Status", "Attempts", "Error"], activity.map(activityRow), { numeric: [4] })
            )
          )
        )
  )
}
