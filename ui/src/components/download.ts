/**
 * Saves JSON the console received as a file: the value stringified into a
 * Blob, offered through a temporary object URL and `<a download>` (no
 * navigation, nothing kept: the URL is revoked once the click is handled).
 * Used by the snapshots and audit pages. {@link downloadUrl} saves what a
 * same-origin URL answers (the session cookie goes with it; the memory
 * page's exports).
 */

/** Offers `value` as the download `filename` (pretty JSON, `application/json`). */
export const downloadJson = (value: unknown, filename: string): void => {
  const blob = new Blob([JSON.stringify(value, null, 2) + "\n"], { type: "application/json" })
  const url = URL.createObjectURL(blob)
  const link = document.createElement("a")
  link.href = url
  link.download = filename
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

/** Offers what the gateway answers at `url` (same origin: the session cookie is sent) as the download `filename`. */
export const downloadUrl = (url: string, filename: string): void => {
  const link = document.createElement("a")
  link.href = url
  link.download = filename
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
}

/** A file-name-safe form of an ISO 8601 instant: `2026-01-05T09-00-00Z`. */
export const fileStamp = (iso: string): string => iso.replace(/\.\d+Z$/, "Z").replace(/:/g, "-")
