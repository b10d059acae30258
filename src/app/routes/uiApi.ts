/**
 * The operator UI (public, gateway-api.md "Public routes"): `GET /ui` and
 * `GET /ui/*`. The UI assets are not part of this build, so both answer as
 * the spec says for missing assets, in plain text and without asking for a
 * token: `GET /ui` 404 `operator_ui_assets_unavailable`, `GET /ui/*` 404
 * `not_found`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { documented } from "../../http/api/examples.ts"
import { Access, PUBLIC } from "../../http/api/access.ts"
import { RequestErrors } from "../../http/api/security.ts"

/** The body of `GET /ui` without assets (gateway-api.md: "404 text operator_ui_assets_unavailable"). */
export const UI_ASSETS_UNAVAILABLE = "operator_ui_assets_unavailable"
/** The body of `GET /ui/*` for a path that is not an asset (gateway-api.md: "404 text not_found"). */
export const UI_NOT_FOUND = "not_found"

const text = (status: number, description: string) =>
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }), HttpApiSchema.status(status)).annotate({ description })
const html = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

/** The operator UI shell and its assets. */
export const UiApi = HttpApiGroup.make("ui")
  .add(
    HttpApiEndpoint.get("shell", "/ui", {
      success: html.annotate({ description: "the operator SPA shell (when its assets are installed)" }),
      error: text(404, `\`${UI_ASSETS_UNAVAILABLE}\`: the operator UI assets are not installed in this build`)
    }).annotateMerge(documented(
      "The operator UI's SPA shell. The UI assets are not part of this build, so it answers 404 with the text " +
        "`operator_ui_assets_unavailable`, without asking for a token.",
      { status: 404, text: UI_ASSETS_UNAVAILABLE }
    )),
    HttpApiEndpoint.get("asset", "/ui/*", {
      success: html.annotate({ description: "an SPA route or a static asset (when the assets are installed)" }),
      error: text(404, `\`${UI_NOT_FOUND}\`: no such asset`)
    }).annotateMerge(documented(
      "The UI's routes and static assets. Without the assets every path answers 404 with the text `not_found`.",
      { path: "/ui/assets/app.js", status: 404, text: UI_NOT_FOUND }
    ))
  )
  .annotate(Access, PUBLIC)
  .middleware(RequestErrors)
