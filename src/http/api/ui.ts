/**
 * `GET /ui` (public, gateway-api.md "Public routes"): the operator UI is not
 * part of this build, so the shell answers as the spec says for missing
 * assets: 404 `operator_ui_assets_unavailable`, without asking for a token.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, PUBLIC } from "./access.ts"
import { wire } from "./errors.ts"

/** 404 `operator_ui_assets_unavailable`: the operator UI assets are not installed. */
export class OperatorUiAssetsUnavailable extends Schema.TaggedError<OperatorUiAssetsUnavailable>()(
  "OperatorUiAssetsUnavailable",
  { message: Schema.String },
  { httpApiStatus: 404, errorCode: "operator_ui_assets_unavailable" }
) {}

/** The operator UI shell. */
export const UiApi = HttpApiGroup.make("ui")
  .add(HttpApiEndpoint.get("shell", "/ui", { success: Schema.String, error: wire(OperatorUiAssetsUnavailable) }))
  .annotate(Access, PUBLIC)
