/**
 * `GET /ui` (public, gateway-api.md "Public routes"): the operator UI is not
 * part of this build, so the shell answers as the spec says for missing
 * assets, 404 `operator_ui_assets_unavailable`, without asking for a token.
 * `GET /ui/*` falls through to the router's 404 `not_found` (also public).
 */
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { errorJson } from "../respond.ts"

const unavailable = errorJson(404, "operator_ui_assets_unavailable", "the operator UI assets are not installed in this build")

/** Registers `GET /ui`. */
export const UiRoutes = HttpRouter.add("GET", "/ui", Effect.succeed(unavailable))
