// @ts-check
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // *.generated.ts: TypeBox's compiled checks (packages/core/scripts/body-checks.ts), checked by their tests.
  { ignores: ["**/node_modules/**", ".cache/**", "**/dist/**", "**/*.generated.ts"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      // client-node's models (V1Deployment, ...) are classes only in name: plain object
      // literals are how its own documentation builds them.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
  {
    files: ["packages/dashboard/app/**/*.{ts,tsx}"],
    ...reactHooks.configs.flat.recommended,
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      // Advice for the React Compiler's memoization, which this app does not use.
      "react-hooks/incompatible-library": "off",
    },
  },
  {
    // The browser bundle: no Node built-ins, and the domain only through its browser entry.
    files: ["packages/dashboard/app/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: ["@svc/core"],
          patterns: ["node:*", "@svc/kube", "@svc/api", "@svc/operator", "@svc/sidecar", "@svc/localkube"],
        },
      ],
    },
  },
  {
    // A function a reader takes in at once: the wiring is lists of parts (@svc/process), routes
    // one function each, components split into subcomponents and hooks (docs/development.md).
    files: ["packages/*/src/**/*.{ts,tsx}", "packages/dashboard/app/**/*.{ts,tsx}"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
  {
    // The local control plane and node start root processes and install exit hooks that kill
    // them: only `svc dev` (and the tests, harnesses and benchmarks) load them, never a production
    // command. The dashboard app refuses it in its own object above (a second would replace it).
    files: ["packages/{core,kube,api,operator,sidecar,dashboard,cli}/src/**/*.{ts,tsx}"],
    ignores: ["packages/cli/src/commands/dev.ts", "packages/cli/src/dev/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@svc/localkube", "@svc/localkube/*", "**/localkube/src/**"],
              message: "@svc/localkube is for svc dev, the tests and the benchmarks only",
            },
          ],
        },
      ],
    },
  },
);
