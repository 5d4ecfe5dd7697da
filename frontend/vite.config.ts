// Builds the pages' bundles into Django's static folder (otterweb/static/frontend/, git-ignored)
// with a manifest that the `vite_entry` template tag reads. Each page has its own entry in
// src/pages/; the CodeMirror packages go to a chunk of their own, so a change of ours does not
// make browsers fetch the editor library again.
import { lezer } from "@lezer/generator/rollup";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [lezer()],
  base: "./",
  build: {
    outDir: "../otterweb/static/frontend",
    emptyOutDir: true,
    manifest: true,
    // the template tag writes the modulepreload links; nothing is loaded lazily
    modulePreload: { polyfill: false },
    target: "es2022",
    sourcemap: false,
    rolldownOptions: {
      input: { item: "src/pages/item.ts" },
      output: {
        codeSplitting: {
          groups: [{ name: "codemirror", test: /node_modules[\\/](@codemirror|@lezer|@marijn|crelt|style-mod|w3c-keyname)/ }],
        },
      },
    },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
