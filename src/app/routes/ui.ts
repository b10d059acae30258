/**
 * `GET /ui`, `GET /ui/*` (src/app/routes/uiApi.ts; gateway-api.md "Public
 * routes"; docs/ui.md): the operator console, answered from its build as
 * read once at start into memory (src/app/routes/uiAssets.ts `UiAssets`:
 * `SVC_UI_DIR`, default the package's `dist/ui`).
 *
 * - the shell (`/ui`, `/ui/`, any client route, src/app/routes/uiRequest.ts):
 *   `index.html`, `Cache-Control: no-store` (a new build is picked up at once);
 * - a file of the build: its content type; `public, max-age=31536000,
 *   immutable` under `assets/` (hashed names), `no-cache` elsewhere;
 * - no such file, or a path that tries to leave the directory: 404 text `not_found`;
 * - without a build (no directory, no `index.html`): the shell answers 404
 *   text `operator_ui_assets_unavailable`, every file 404 `not_found`.
 *
 * Every answer, 404s included, carries {@link UI_SECURITY_HEADERS}: a strict
 * Content-Security-Policy (no inline script or style, no framing, API and
 * WebSocket on the same origin only), `nosniff`, no referrer, `DENY` framing.
 * `HEAD` is answered like `GET`, without the body (the router's fallback).
 */
import { UiApi } from "./uiApi.ts"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { UI_ASSETS_UNAVAILABLE, UI_NOT_FOUND } from "./uiApi.ts"
import { UI_INDEX, UiAssets, type UiBuild, uiContentType } from "./uiAssets.ts"
import { uiTarget } from "./uiRequest.ts"
import { apiOf, group } from "../../http/serve.ts"

/** The Content-Security-Policy of every `/ui` answer: same-origin everything, no inline script, no framing. */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

/** The headers of every `/ui` answer, 404s included. */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": UI_CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/** `Cache-Control` of the shell, the hashed files under `assets/`, the other files and the 404s. */
export const UI_CACHE_CONTROL = {
  shell: "no-store",
  hashed: "public, max-age=31536000, immutable",
  other: "no-cache",
  notFound: "no-store"
} as const

const answer = (body: Uint8Array | string, status: number, contentType: string, cacheControl: string) => {
  const options = { status, contentType, headers: { ...UI_SECURITY_HEADERS, "cache-control": cacheControl } }
  return typeof body === "string" ? HttpServerResponse.text(body, options) : HttpServerResponse.uint8Array(body, options)
}

const notFoundText = "text/plain; charset=utf-8"

/** The answer to the `/ui…` request target `url` from `assets`. */
export const uiResponse = (assets: UiBuild, url: string): HttpServerResponse.HttpServerResponse => {
  const target = uiTarget(url)
  const notFound = answer(UI_NOT_FOUND, 404, notFoundText, UI_CACHE_CONTROL.notFound)
  if (target._tag === "Invalid") return notFound
  if (assets._tag === "Missing") {
    return target._tag === "Shell" ? answer(UI_ASSETS_UNAVAILABLE, 404, notFoundText, UI_CACHE_CONTROL.notFound) : notFound
  }
  const key = target._tag === "Shell" ? UI_INDEX : target.key
  const body = assets.files.get(key)
  if (body === undefined) return notFound
  const cacheControl = key === UI_INDEX
    ? UI_CACHE_CONTROL.shell
    : key.startsWith("assets/")
    ? UI_CACHE_CONTROL.hashed
    : UI_CACHE_CONTROL.other
  return answer(body, 200, uiContentType(key), cacheControl)
}

/** UI handlers; need {@link UiAssets} (the build, read at start). */
export const UiHttp = group(apiOf(UiApi), "ui", (handlers) =>
  Effect.map(UiAssets, (assets) =>
    handlers.handleAll({
      shell: ({ request }) => Effect.succeed(uiResponse(assets, request.url)),
      asset: ({ request }) => Effect.succeed(uiResponse(assets, request.url))
    })))
