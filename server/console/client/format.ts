// Reading JSON answers without trusting their shape: a missing or mistyped field reads as empty.

export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Reflect.get(value, key) : undefined

export const str = (value: unknown, key: string): string => {
  const v = field(value, key)
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : ""
}

export const optStr = (value: unknown, key: string): string | null => {
  const v = field(value, key)
  return typeof v === "string" && v !== "" ? v : null
}

export const num = (value: unknown, key: string): number => {
  const v = field(value, key)
  return typeof v === "number" && Number.isFinite(v) ? v : 0
}

export const list = (value: unknown, key: string): ReadonlyArray<unknown> => {
  const v = field(value, key)
  return Array.isArray(v) ? v : []
}

export const strings = (value: unknown, key: string): ReadonlyArray<string> =>
  list(value, key).filter((v): v is string => typeof v === "string")

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" })

export const dollars = (cents: number): string => usd.format(cents / 100)

/** Times in UTC, as stored: the same instant reads the same on every operator's screen. */
export const dateTime = (iso: string): string => (iso === "" ? "" : `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`)

export const statusLabel = (status: string): string => status.replaceAll("_", " ")

export const personName = (value: unknown): string =>
  [str(value, "first_name"), str(value, "middle_name"), str(value, "last_name")].filter((s) => s !== "").join(" ")

export const address = (value: unknown): string => {
  const a = field(value, "address")
  if (a === undefined) return ""
  const zip = [str(a, "zip_code"), str(a, "zip_plus_four_code")].filter((s) => s !== "").join("-")
  return [str(a, "address1"), str(a, "address2"), str(a, "city"), `${str(a, "state")} ${zip}`.trim()].filter((s) => s !== "").join(", ")
}
