/**
 * The core entry's browser budget, checked by size-limit (`npm run size`, part of `npm test`): the
 * core bundled the way a browser app ships it (esbuild, every dependency in, minified), gzipped.
 * What a price preview can afford to ship.
 */
module.exports = [
  {
    name: "imagegen-pricing (core entry, browser, minified, gzip)",
    path: "src/index.ts",
    limit: "18 KiB",
    gzip: true,
    // platform "browser" cannot resolve a Node built-in, so a core that imported one fails here too.
    modifyEsbuildConfig: (config) => ({
      ...config,
      platform: "browser",
      format: "esm",
      target: "es2022",
      legalComments: "none",
    }),
  },
];
