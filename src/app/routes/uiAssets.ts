/**
 * The operator console's build (`vite build` → `index.html` plus hashed
 * files in `assets/`) as the {@link UiAssets} service, read once at start,
 * with the other services, so before the server listens (`SVC_UI_DIR`, else
 * the package's `dist/ui`: src/app/routes/uiLocation.ts), logged once, and
 * kept in memory: the files are
 * small (a few hundred KiB in all) and do not change while the process runs,
 * so a request never touches the disk and can only name a file that was
 * listed at start (no path is ever joined from a request).
 *
 * Bounded: at most {@link MAX_UI_FILES} files and {@link MAX_UI_BYTES} bytes
 * in all; a larger directory is not served (`Missing`, with the reason). Hidden
 * entries (a name starting with `.`, e.g. Vite's `.vite/manifest.json`) are
 * not read, and neither is anything but regular files and directories
 * (symbolic links are followed), at most {@link MAX_UI_DEPTH} levels deep.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Context, Data, Effect, FileSystem, Layer, Option, Path, Result } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { UI_ASSETS_UNAVAILABLE } from "./uiApi.ts"
import { packageUiDir } from "./uiLocation.ts"

/** Most bytes read from the UI directory, all files together: 32 MiB. */
export const MAX_UI_BYTES = 32 * 1024 * 1024
/** Most files read from the UI directory. */
export const MAX_UI_FILES = 2_000
/** Most directory levels below the UI directory that are read. */
export const MAX_UI_DEPTH = 16

/** The shell every client route answers with. */
export const UI_INDEX = "index.html"

/** Content types by lower-case file extension; any other extension is `application/octet-stream`. */
export const UI_CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  map: "application/json; charset=utf-8",
  webmanifest: "application/manifest+json; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  woff2: "font/woff2",
  woff: "font/woff",
  ttf: "font/ttf",
  otf: "font/otf",
  wasm: "application/wasm"
}

/** The content type of a file named `name` (by its extension, any case). */
export const uiContentType = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return (dot === -1 ? undefined : UI_CONTENT_TYPES[name.slice(dot + 1).toLowerCase()]) ?? "application/octet-stream"
}

/**
 * The console's build as read at start:
 * - `Loaded`: `files` by their path below the directory, `/`-separated
 *   (`index.html`, `assets/index-3fA9c.js`), `index.html` among them;
 *   `bytes` in all;
 * - `Missing`: not served; `reason` says why, in words (no such directory,
 *   no `index.html`, too large, unreadable), for the start log.
 *
 * `dir` is the absolute directory, or `undefined` when the package's own
 * `dist/ui` could not be located.
 */
export type UiBuild =
  | {
    readonly _tag: "Loaded"
    readonly dir: string
    readonly files: ReadonlyMap<string, Uint8Array>
    readonly bytes: number
  }
  | { readonly _tag: "Missing"; readonly dir: string | undefined; readonly reason: string }

/** Why a directory is not served (internal to {@link loadUiAssets}). */
class NotServed extends Data.TaggedError("NotServed")<{ readonly reason: string }> {}

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message).split("\n")[0]! : String(error)

/**
 * Reads the console's build under `dir` (relative paths are resolved against
 * the working directory) into memory. Never fails: a directory that cannot
 * be served is `Missing` with the reason.
 */
export const loadUiAssets = Effect.fnUntraced(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.resolve(dir)
  const files = new Map<string, Uint8Array>()
  let bytes = 0

  const read = <A>(effect: Effect.Effect<A, unknown>, what: string) =>
    Effect.mapError(effect, (error) => new NotServed({ reason: `cannot read ${what} (${describe(error)})` }))

  const walk = (absolute: string, relative: ReadonlyArray<string>): Effect.Effect<void, NotServed> =>
    Effect.gen(function*() {
      const names = (yield* read(fs.readDirectory(absolute), relative.length === 0 ? "the directory" : relative.join("/"))).sort()
      for (const name of names) {
        if (name.startsWith(".")) continue
        const entry = path.join(absolute, name)
        const key = [...relative, name]
        const info = yield* read(fs.stat(entry), key.join("/"))
        if (info.type === "Directory") {
          if (key.length <= MAX_UI_DEPTH) yield* walk(entry, key)
        } else if (info.type === "File") {
          if (files.size >= MAX_UI_FILES) return yield* new NotServed({ reason: `more than ${MAX_UI_FILES} files` })
          const body = yield* read(fs.readFile(entry), key.join("/"))
          bytes += body.byteLength
          if (bytes > MAX_UI_BYTES) return yield* new NotServed({ reason: `more than ${MAX_UI_BYTES} bytes` })
          files.set(key.join("/"), body)
        }
      }
    })

  const info = yield* Effect.result(fs.stat(root))
  if (Result.isFailure(info) || info.success.type !== "Directory") {
    return { _tag: "Missing", dir: root, reason: "no such directory" } satisfies UiBuild as UiBuild
  }
  const walked = yield* Effect.result(walk(root, []))
  if (Result.isFailure(walked)) return { _tag: "Missing", dir: root, reason: walked.failure.reason } satisfies UiBuild as UiBuild
  if (!files.has(UI_INDEX)) return { _tag: "Missing", dir: root, reason: `no ${UI_INDEX}` } satisfies UiBuild as UiBuild
  return { _tag: "Loaded", dir: root, files, bytes } satisfies UiBuild as UiBuild
})

/** The console's build from `SVC_UI_DIR`, else the package's `dist/ui`, logged once at Info (the directory, never a secret). */
const loadConfigured = Effect.gen(function*() {
  const settings = yield* GatewayConfig
  const dir = settings.uiDir ?? Option.getOrUndefined(yield* packageUiDir)
  const build: UiBuild = dir === undefined
    ? { _tag: "Missing", dir: undefined, reason: "the package's dist/ui was not found (set SVC_UI_DIR)" }
    : yield* loadUiAssets(dir)
  if (build._tag === "Loaded") {
    yield* Effect.logInfo("operator console assets found").pipe(
      Effect.annotateLogs({ ui_dir: build.dir, files: build.files.size, bytes: build.bytes })
    )
  } else {
    yield* Effect.logInfo(`operator console assets unavailable: /ui answers 404 ${UI_ASSETS_UNAVAILABLE}`).pipe(
      Effect.annotateLogs({ ui_dir: build.dir ?? null, reason: build.reason })
    )
  }
  return build
})

/**
 * The console's build of this process ({@link UiBuild}), read when the layer
 * is built: with the other services, before the HTTP server listens, so a
 * request never waits for the disk and `GET /healthz` answering means `/ui`
 * is ready.
 */
export class UiAssets extends Context.Service<UiAssets, UiBuild>()("svc-gateway/ui/UiAssets") {
  /** Reads `SVC_UI_DIR` (else the package's `dist/ui`) through platform-node's `FileSystem` (Node and Deno); needs `GatewayConfig`. */
  static readonly layer: Layer.Layer<UiAssets, never, GatewayConfig> = Layer.effect(UiAssets, loadConfigured).pipe(
    Layer.provide(NodeServices.layer)
  )
}
