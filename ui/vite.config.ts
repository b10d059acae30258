/**
 * The operator console's build (docs/ui.md): Preact through Vite, served by
 * the gateway under /ui from dist/ui (hashed files in dist/ui/assets, plus
 * index.html). No inline script or style reaches the output, so the strict
 * CSP of /ui holds; `npm run ui:dev` proxies the API to a gateway on :8788.
 */
import preact from "@preact/preset-vite"
import { defineConfig } from "vite"

const gateway = process.env.SVC_UI_DEV_GATEWAY ?? "http://127.0.0.1:8788"

export default defineConfig({
  root: import.meta.dirname,
  base: "/ui/",
  plugins: [preact()],
  build: {
    outDir: "../dist/ui",
    emptyOutDir: true,
    target: "es2022",
    manifest: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false
  },
  server: {
    proxy: {
      "^/(?!ui(/|$)|@|src/|node_modules/).*": { target: gateway, ws: true, changeOrigin: false }
    }
  }
})
