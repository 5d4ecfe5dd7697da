/// <reference types="node" />
// Builds the pages' bundles into Django's static folder (otterweb/static/frontend/, git-ignored)
// with a manifest that the `vite_entry` template tag reads. Each page loads one entry of
// src/pages/ (base.html's `entry` block: site.ts unless the page names its own); the CodeMirror packages go to a chunk of their own, so a change of ours does not
// make browsers fetch the editor library again. Blockly has a chunk of its own too, imported
// dynamically by the mode switch the first time a script is shown as blocks: pages (and scripts
// opened as text) that never show blocks never load it.
import { readdirSync, readFileSync } from "node:fs";
import { lezer } from "@lezer/generator/rollup";
import { defineConfig, type Plugin } from "vitest/config";

// Blockly's images and cursors (sprites, dropdown arrow, hand cursors), served with ours: Blockly
// would otherwise fetch them from its CDN. The block editor points its `media` option here.
function blocklyMedia(): Plugin {
  const folder = "node_modules/blockly/media/";
  return {
    name: "otterweb-blockly-media",
    apply: "build",
    generateBundle() {
      for (const name of readdirSync(folder))
        if (!name.endsWith(".mp3")) // sounds are off
          this.emitFile({ type: "asset", fileName: `blockly-media/${name}`, source: readFileSync(folder + name) });
    },
  };
}

export default defineConfig({
  plugins: [lezer(), blocklyMedia()],
  base: "./",
  build: {
    outDir: "../otterweb/static/frontend",
    emptyOutDir: true,
    manifest: true,
    // the template tag writes the modulepreload links of the static imports; the block editor
    // is imported dynamically (its chunks fetched then)
    modulePreload: { polyfill: false },
    target: "es2022",
    // Blockly alone is about 700 kB (190 kB gzipped), in its own lazily loaded chunk
    chunkSizeWarningLimit: 800,
    sourcemap: false,
    rolldownOptions: {
      input: {
        site: "src/pages/site.ts",
        home: "src/pages/home.ts",
        executions: "src/pages/executions.ts",
        execution: "src/pages/execution.ts",
        template: "src/pages/template.ts",
        item: "src/pages/item.ts",
      },
      output: {
        codeSplitting: {
          groups: [
            { name: "codemirror", test: /node_modules[\\/](@codemirror|@lezer|@marijn|crelt|style-mod|w3c-keyname)/ },
            { name: "blockly", test: /node_modules[\\/]blockly[\\/]/ },
          ],
        },
      },
    },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
    // test files share their workers (5 s for the suite instead of 44): each file makes its own
    // workspaces, views and fakes, and what a module keeps for the page (Blockly's registries,
    // its shortcuts and menus) is kept by workspace
    isolate: false,
  },
});
