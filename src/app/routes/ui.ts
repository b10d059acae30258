/**
 * `GET /ui`, `GET /ui/*` (src/http/api/ui.ts): the UI assets are not part of
 * this build, so the shell answers 404 text `operator_ui_assets_unavailable`
 * and every path below it 404 text `not_found` (gateway-api.md "Public routes").
 */
import { UiApi } from "./uiApi.ts"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { UI_ASSETS_UNAVAILABLE, UI_NOT_FOUND } from "./uiApi.ts"
import { apiOf, group } from "../../http/serve.ts"

const notFound = (body: string) => HttpServerResponse.text(body, { status: 404, contentType: "text/plain; charset=utf-8" })
const shell = Effect.succeed(notFound(UI_ASSETS_UNAVAILABLE))
const asset = Effect.succeed(notFound(UI_NOT_FOUND))

/** UI handlers; need nothing. */
export const UiHttp = group(apiOf(UiApi), "ui", (handlers) => handlers.handleAll({ shell: () => shell, asset: () => asset }))
