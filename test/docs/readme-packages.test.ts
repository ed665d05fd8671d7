import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

/**
 * The README's "about N packages" is what `npm install` installs: the lockfile's packages that are
 * on disk after the install (the others are another platform's builds, such as esbuild's). It said
 * about 350 when the install was 459.
 */
const ROOT = join(import.meta.dirname, "../..");

it("the README says about how many packages npm install installs", () => {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  const installed = Object.keys(lock.packages).filter(
    (path) => path !== "" && existsSync(join(ROOT, path, "package.json")),
  ).length;
  const said = /`npm install` installs [^(]*\(about (\d+) packages\)/.exec(
    readFileSync(join(ROOT, "README.md"), "utf8"),
  );
  expect(said, "the README's sentence on what npm install installs").not.toBeNull();
  const about = Number(said?.[1]);
  expect(
    Math.abs(about - installed) / installed,
    `README: about ${about}; installed: ${installed}`,
  ).toBeLessThan(0.05);
});
