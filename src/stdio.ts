/**
 * `svc-gateway serve | head -1`: once the reader of stdout (or stderr) is
 * gone, writing to it fails with EPIPE, which Node reports as an unhandled
 * stream error and crashes on. {@link tolerateClosedOutput} makes that a
 * non-event: the process keeps running and later output is dropped.
 */

/** Ignores EPIPE (and writes after it) on stdout and stderr; any other stream error still crashes. Idempotent. */
export const tolerateClosedOutput = (): void => {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listeners("error").includes(ignoreEpipe)) continue
    stream.on("error", ignoreEpipe)
  }
}

function ignoreEpipe(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error
}
