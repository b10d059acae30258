/**
 * The installed svc-gateway package's root directory, found from a module's
 * own location (`import.meta.url`) by walking up to the directory whose
 * `package.json` is named `svc-gateway`. A module sits at a different depth
 * in each form the gateway runs from (the sources under tsx, vitest and
 * Deno; tsc's output, `dist/…`; the bundled CLI, a chunk in `dist/cli/`), so
 * no fixed `../..` fits them all. Used for the files the package ships beside
 * its code: the operator console's build (src/app/routes/uiLocation.ts) and
 * the bundled model catalog (services/models/bundled.ts).
 *
 * @module
 */
import { Effect, FileSystem, Option, Path, Schema } from "effect"

/** The `name` of the gateway's package (package.json). */
export const PACKAGE_NAME = "svc-gateway"

const decodePackageName = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({ name: Schema.optional(Schema.Unknown) }))
)

/**
 * The nearest directory at or above the one holding `moduleUrl` (a `file:`
 * URL) whose `package.json` has `"name": "svc-gateway"`; `None` when there is
 * none (e.g. the gateway bundled into another program) or `moduleUrl` is not
 * a file URL. Unreadable or invalid `package.json` files are skipped.
 */
export const findPackageRoot = Effect.fnUntraced(function*(moduleUrl: URL) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = yield* Effect.option(path.fromFileUrl(moduleUrl))
  if (Option.isNone(file)) return Option.none<string>()
  let dir = path.dirname(file.value)
  while (true) {
    const text = yield* Effect.option(fs.readFileString(path.join(dir, "package.json")))
    const name = Option.flatMap(text, decodePackageName).pipe(Option.map((pkg) => pkg.name))
    if (Option.getOrUndefined(name) === PACKAGE_NAME) return Option.some(dir)
    const parent = path.dirname(dir)
    if (parent === dir) return Option.none<string>()
    dir = parent
  }
})
