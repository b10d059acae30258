/**
 * The model catalog's settings (issue 25 §5; layers/settings.ts): where the
 * remote catalog is fetched from and whether it is (docs/models.md).
 */
import { Result } from "effect"
import { Setting } from "../../layers/settings.ts"

/** `SVC_MODELS_DEV_URL`: an http(s) base URL without query or fragment; a trailing `/` is dropped. */
export const resolveModelsDevUrl = (raw: string): Result.Result<string, string> => {
  const url = raw.trim().replace(/\/+$/, "")
  const problem = "SVC_MODELS_DEV_URL / --models-dev-url must be an http:// or https:// base URL (the catalog is fetched from <url>/api.json)"
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return Result.fail(problem)
  const parsed = new URL(url)
  if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "") {
    return Result.fail(`${problem}, without query, fragment or credentials`)
  }
  return Result.succeed(url)
}

/** `SVC_MODELS_DEV_URL` (read as `modelsDevUrl`) and `SVC_MODELS_DEV_DISABLE_FETCH` (`0`/`1`, read as `modelsDevDisableFetch`). */
export const ModelsSettings = Setting.group("models", {
  modelsDevUrl: Setting.text({
    env: "SVC_MODELS_DEV_URL",
    flag: "models-dev-url",
    default: "https://models.dev",
    summary: "Base URL of the models.dev catalog; the gateway fetches <url>/api.json hourly (SVC_MODELS_DEV_URL)",
    doc:
      "Base URL of the model catalog: `<url>/api.json` is fetched in the background at start and every hour (`If-None-Match`, 10 s timeout) and cached in the database (`docs/models.md`).",
    resolve: resolveModelsDevUrl
  }),
  modelsDevFetch: Setting.named(
    "modelsDevDisableFetch",
    Setting.toggle({
      env: "SVC_MODELS_DEV_DISABLE_FETCH",
      flag: "models-dev-disable-fetch",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1 never fetches the model catalog: the cached or bundled one is served (SVC_MODELS_DEV_DISABLE_FETCH)",
      doc: "`1` never fetches the model catalog (no network): the cached catalog, else the snapshot bundled in the package, is served, and `POST /models/refresh` says fetching is disabled."
    })
  )
})

declare module "../../layers/settings.ts" {
  /** Enters the models subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly models: typeof ModelsSettings.settings
  }
}
