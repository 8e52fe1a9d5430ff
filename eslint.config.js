// eslint for the page's ES modules (server/web), run by `make lint`: the recommended rules,
// the browser's globals, a few more that catch real mistakes.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["server/web/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
    },
  },
];
