/**
 * Where the operator console's build is when `SVC_UI_DIR` is unset: the
 * `dist/ui` directory of the installed svc-gateway package, found from this
 * module's own location (`import.meta.url`) by walking up to the directory
 * whose `package.json` is named `svc-gateway`. The module sits at a different
 * depth in each form the gateway runs from (the sources, `src/app/routes/`,
 * under tsx, vitest and Deno; tsc's output, `dist/src/app/routes/`; the
 * bundled CLI, a chunk in `dist/cli/`), so no fixed `../..` fits them all.
 *
 * @module
 */
import { Effect, FileSystem, Option, Path, Schema } from "effect"

/** The `name` of the package whose `dist/ui` is the default (package.json). */
export const PACKAGE_NAME = "svc-gateway"

/** The console's build directory inside the package root: `dist/ui` (what `vite build` writes). */
export const PACKAGE_UI_DIR = ["dist", "ui"] as const

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

/**
 * The default UI directory: `<package root>/dist/ui` (absolute), found from
 * this module's location; `None` when the package root is not found.
 */
export const packageUiDir: Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> = Effect.gen(
  function*() {
    const path = yield* Path.Path
    const root = yield* findPackageRoot(new URL(import.meta.url))
    return Option.map(root, (dir) => path.join(dir, ...PACKAGE_UI_DIR))
  }
)
