/** The page may load only from this origin: no inline script or style, no framing, no foreign fetch. */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/** Sent with every console answer (pages, assets, JSON). */
export const consoleHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

/** Session-bound data must not be kept by the browser's or a proxy's cache. */
export const privateHeaders: Readonly<Record<string, string>> = { ...consoleHeaders, "cache-control": "no-store" }
