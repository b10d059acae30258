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
import { Effect, type FileSystem, Option, Path } from "effect"
import { findPackageRoot, PACKAGE_NAME } from "../../../services/shared/packageRoot.ts"

// Moved to services/shared/packageRoot.ts (the bundled model catalog uses it too); re-exported for existing importers.
export { findPackageRoot, PACKAGE_NAME }

/** The console's build directory inside the package root: `dist/ui` (what `vite build` writes). */
export const PACKAGE_UI_DIR = ["dist", "ui"] as const

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
