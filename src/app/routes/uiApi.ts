/**
 * The operator console (public, gateway-api.md "Public routes"; docs/ui.md):
 * `GET /ui` serves its shell, `GET /ui/*` its client-side routes (the shell
 * again) and the files of its build, without asking for a token. The build
 * is the directory `SVC_UI_DIR` (default: the package's `dist/ui`); without
 * it, `GET /ui` answers 404 text `operator_ui_assets_unavailable` and
 * `GET /ui/*` 404 text `not_found`. Served by src/app/routes/ui.ts.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { documented } from "../../http/api/examples.ts"
import { Access, PUBLIC } from "../../http/api/access.ts"
import { RequestErrors } from "../../http/api/security.ts"

/** The body of `GET /ui` without assets (gateway-api.md: "404 text operator_ui_assets_unavailable"). */
export const UI_ASSETS_UNAVAILABLE = "operator_ui_assets_unavailable"
/** The body of `GET /ui/*` for a path that is not a file of the build (gateway-api.md: "404 text not_found"). */
export const UI_NOT_FOUND = "not_found"

const text = (status: number, description: string) =>
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }), HttpApiSchema.status(status)).annotate({ description })
const html = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

/** The operator console's shell, client routes and files. */
export const UiApi = HttpApiGroup.make("ui")
  .add(
    HttpApiEndpoint.get("shell", "/ui", {
      success: html.annotate({ description: "the console's shell, index.html (Cache-Control: no-store)" }),
      error: text(404, `\`${UI_ASSETS_UNAVAILABLE}\`: the console's build is not installed (SVC_UI_DIR)`)
    }).annotateMerge(documented(
      "The operator console: its shell (`index.html`), public, with a strict Content-Security-Policy (same origin " +
        "only, no inline script, no framing), `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`; sign " +
        "in there with the admin token. The build is read at start from `SVC_UI_DIR` (default: the package's " +
        "`dist/ui`); without it the answer is 404 with the text `operator_ui_assets_unavailable`.",
      { text: "…<html" }
    )),
    HttpApiEndpoint.get("asset", "/ui/*", {
      success: html.annotate({
        description: "the shell for a client route (no file extension), else the file of the build with its content type"
      }),
      error: text(404, `\`${UI_NOT_FOUND}\`: no such file (or \`${UI_ASSETS_UNAVAILABLE}\` for a client route without a build)`)
    }).annotateMerge(documented(
      "The console's client routes and files. A path whose last segment has no extension (`/ui/approvals`, " +
        "`/ui/runs/abc`) is a client route: the shell, as `GET /ui`. Any other path is a file of the build: hashed " +
        "files under `assets/` are `Cache-Control: public, max-age=31536000, immutable`, the others `no-cache`. " +
        "A missing file, or a path that tries to leave the directory (`..`, encoded or not, backslashes), is 404 " +
        "with the text `not_found`. Every answer carries the same security headers as `GET /ui`.",
      { path: "/ui/approvals", text: "…<html" }
    ))
  )
  .annotate(Access, PUBLIC)
  .middleware(RequestErrors)
