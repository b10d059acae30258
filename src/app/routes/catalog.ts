/**
 * JSON Schema catalog handlers (src/http/api/contracts.ts): the documents are
 * generated from the wire schemas once, on the first request (generation takes
 * a fraction of a second, so a gateway that is never asked does not pay it),
 * and kept for the life of the process; a generation failure is logged once
 * and answered 500 `contracts_unavailable` from then on.
 *
 * It lives with the catalog, in the contracts subsystem's folder, rather than
 * in src/http/: the catalog reads the HTTP and WS declarations, so src/http
 * importing it would make a folder cycle (test/architecture.test.ts).
 *
 * @module
 */
import { ContractsApi } from "./catalogApi.ts"
import { Clock, Context, Effect, Result } from "effect"
import { GATEWAY_VERSION } from "../../../layers/config.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { type ContractCatalog, makeContractCatalog } from "./catalogSchemas.ts"
import { ContractsUnavailable } from "./catalogApi.ts"
import { apiOf, group } from "../../http/serve.ts"

/** A file the route may serve: a plain basename ending in `.json` (no path separator, no `%`), not the catalog itself. */
export const SAFE_CONTRACT_FILE = /^[A-Za-z0-9_.-]+\.json$/

/**
 * How the catalog is generated, given the time (epoch ms): by default
 * {@link makeContractCatalog} for `GATEWAY_VERSION`. Tests replace it to
 * exercise `contracts_unavailable`.
 */
export const ContractCatalogGenerator = Context.Reference<(nowMs: number) => Result.Result<ContractCatalog, string>>(
  "svc-gateway/http/ContractCatalogGenerator",
  { defaultValue: () => (nowMs) => makeContractCatalog({ version: GATEWAY_VERSION, generatedAtMs: nowMs }) }
)

/** Contracts handlers; need nothing (see {@link ContractCatalogGenerator}). */
export const ContractsHttp = group(apiOf(ContractsApi), "contracts", (handlers) => Effect.gen(function*() {
  const generate = yield* ContractCatalogGenerator
  let generated: Result.Result<ContractCatalog, string> | undefined
  const catalog = Effect.gen(function*() {
    if (generated === undefined) {
      const now = yield* Clock.currentTimeMillis
      // Generation is synchronous: once past this check, no other request runs until it is stored.
      if (generated === undefined) {
        generated = generate(now)
        if (Result.isFailure(generated)) yield* Effect.logError("JSON Schema catalog unavailable", generated.failure)
      }
    }
    return Result.isSuccess(generated)
      ? generated.success
      : yield* new ContractsUnavailable({ message: `the JSON Schema documents could not be generated: ${generated.failure}` })
  })
  const notFound = new NotFound({ message: "no such contract file (see /contracts/jsonschema/catalog.json)" })
  return handlers.handleAll({
    catalog: () => Effect.map(catalog, (contracts) => contracts.catalog),
    file: ({ params }) =>
      !SAFE_CONTRACT_FILE.test(params.file) || params.file === "catalog.json"
        ? Effect.fail(notFound)
        : Effect.flatMap(catalog, (contracts) => {
          const document = contracts.files.get(params.file)
          return document === undefined ? Effect.fail(notFound) : Effect.succeed(document)
        })
  })
}))
