/**
 * What a `GET /ui…` request names (gateway-api.md "Public routes" `/ui`,
 * `/ui/*`), from the request target alone: the shell for the console's
 * client-side routes, a file of its build, or nothing.
 *
 * @module
 */
import { pathOf } from "../../http/path.ts"

/**
 * - `Shell`: `/ui`, `/ui/`, or a client route: a path whose last segment has
 *   no file extension (`/ui/approvals`, `/ui/runs/abc`, `/ui/runs/`);
 * - `File`: a path whose last segment has an extension, by its `key` below
 *   the UI directory, percent-decoded and `/`-separated
 *   (`/ui/assets/index-3fA9c.js` → `assets/index-3fA9c.js`);
 * - `Invalid`: a path that is not a plain relative path below `/ui/`: a `.`
 *   or `..` segment or any name starting with `.` (also percent-encoded:
 *   `%2e%2e`), an encoded `/`, a backslash, a NUL or another control
 *   character, an empty segment (`//`), or bad percent-encoding. Nothing is
 *   ever joined to a file path from it (src/app/routes/uiAssets.ts keeps the
 *   files by key), so this is a second wall, and the answer is 404 `not_found`.
 */
export type UiTarget =
  | { readonly _tag: "Shell" }
  | { readonly _tag: "File"; readonly key: string }
  | { readonly _tag: "Invalid" }

const SHELL: UiTarget = { _tag: "Shell" }
const INVALID: UiTarget = { _tag: "Invalid" }

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[/\\\u0000-\u001f\u007f]/

/** One path segment, percent-decoded, or `undefined` when it is not a plain name. */
const segment = (raw: string): string | undefined => {
  if (raw === "") return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return undefined
  }
  return decoded.startsWith(".") || FORBIDDEN.test(decoded) ? undefined : decoded
}

/** The {@link UiTarget} of a request target (`url`: path and query, as the server received it). */
export const uiTarget = (url: string): UiTarget => {
  const path = pathOf(url)
  if (path === "/ui") return SHELL
  if (!path.startsWith("/ui/")) return INVALID
  const raw = path.slice("/ui/".length).split("/")
  if (raw.at(-1) === "") raw.pop()
  if (raw.length === 0) return SHELL
  const names: Array<string> = []
  for (const part of raw) {
    const name = segment(part)
    if (name === undefined) return INVALID
    names.push(name)
  }
  return names.at(-1)!.includes(".") ? { _tag: "File", key: names.join("/") } : SHELL
}
