import { base, en, Faker } from "@faker-js/faker";
import { prefixFree } from "./words.ts";

/**
 * Text pools drawn once from faker (a dedicated instance with a fixed seed), so records pick from
 * arrays instead of calling faker per record. The pools are the same for every seed; which entries a
 * dataset uses is decided by its seed.
 */
export interface Pools {
  /** Second part of store names; prefix-free so that names built from parts are unique. */
  nouns: readonly string[];
  companies: readonly string[];
  streets: readonly string[];
  firstNames: readonly string[];
}

const POOL_SEED = 20_261_120;
let cached: Pools | undefined;

export function pools(): Pools {
  if (cached) return cached;
  const faker = new Faker({ locale: [en, base] });
  faker.seed(POOL_SEED);
  const nouns = prefixFree(faker.definitions.word.noun.filter((w) => /^[a-z]{3,8}$/.test(w)));
  const companies = [...new Set(Array.from({ length: 1500 }, () => faker.company.name()))];
  const streets = Array.from({ length: 1000 }, () => faker.location.streetAddress());
  const firstNames = [...new Set(Array.from({ length: 400 }, () => faker.person.firstName()))];
  cached = { nouns, companies, streets, firstNames };
  return cached;
}
