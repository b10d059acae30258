/** `GET /ui` (src/http/api/ui.ts): the UI assets are not part of this build: 404 `operator_ui_assets_unavailable`. */
import { Effect } from "effect"
import { OperatorUiAssetsUnavailable } from "./api/ui.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

const unavailable = new OperatorUiAssetsUnavailable({ message: "the operator UI assets are not installed in this build" })

/** UI handlers; need nothing. */
export const UiHttp = handlers(GatewayApi, "ui", Effect.succeed({ shell: () => Effect.fail(unavailable) }))
