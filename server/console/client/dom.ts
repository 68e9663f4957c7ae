// Elements are built with text nodes only: no markup from data ever reaches innerHTML.

type Child = Node | string | null | undefined | false
type Attrs = Record<string, string | boolean | undefined>

export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: ReadonlyArray<Child | ReadonlyArray<Child>>): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    el.setAttribute(name, value === true ? "" : value)
  }
  append(el, children)
  return el
}

const append = (el: Element, children: ReadonlyArray<Child | ReadonlyArray<Child>>) => {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c)
    else if (typeof c === "string") el.append(document.createTextNode(c))
    else if (c instanceof Node) el.append(c)
  }
}

/** An in-console link: a real link (it opens in a new tab too) that the page follows itself. */
export const link = (href: string, label: string, attrs: Attrs = {}) => h("a", { href, "data-nav": true, ...attrs }, label)

export const replace = (el: Element, ...children: ReadonlyArray<Child>) => {
  el.replaceChildren()
  append(el, children)
}

/** A labelled value list: `[term, value]` pairs, empty values left out. */
export const facts = (pairs: ReadonlyArray<readonly [string, Child]>) =>
  h(
    "dl",
    { class: "facts" },
    pairs.filter(([, v]) => v !== "" && v !== null && v !== undefined).flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])
  )

let tables = 0

/**
 * A table with a caption and column headers; `numeric` columns are right-aligned. It sits in a box
 * of its own that scrolls sideways when the table is wider than the screen (a phone), so the page
 * itself never does: the box is a labelled region that takes focus, so that it scrolls from the
 * keyboard too.
 */
export const table = (caption: string, headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Child>>, options: { readonly numeric?: ReadonlyArray<number>; readonly foot?: ReadonlyArray<Child> } = {}) => {
  const cls = (i: number) => (options.numeric?.includes(i) === true ? "num" : undefined)
  const id = `table-${++tables}`
  return h(
    "div",
    { class: "table-scroll", role: "region", "aria-labelledby": id, tabindex: "0" },
    h(
    "table",
    {},
    h("caption", { id }, caption),
    h("thead", {}, h("tr", {}, headers.map((t, i) => h("th", { scope: "col", class: cls(i) }, t)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row", class: cls(i) }, c) : h("td", { class: cls(i) }, c)))))),
    options.foot === undefined ? null : h("tfoot", {}, h("tr", {}, options.foot.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", { class: cls(i) }, c)))))
    )
  )
}

/** An announced message (errors and confirmations are read out by screen readers). */
export const notice = (kind: "error" | "ok", ...lines: ReadonlyArray<Child>) =>
  h("div", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, ...lines)

/** Follows an in-console address without a page load; the page draws the view for it. */
export const navigate = (href: string) => {
  history.pushState(null, "", href)
  redraw()
}

let flash: string | undefined

/** Draws the current view again (after a change), optionally announcing what was done. */
export const redraw = (message?: string) => {
  flash = message
  window.dispatchEvent(new Event("console:navigate"))
}

/** The message left by the last change, once. */
export const takeFlash = (): string | undefined => {
  const message = flash
  flash = undefined
  return message
}
