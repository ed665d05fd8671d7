/** Salts that give each kind of draw its own random stream: Rng.of(seed, SALT.x, index). */
export const SALT = {
  names: 1,
  identity: 2,
  permutation: 3,
  app: 4,
  appDetail: 5,
  domain: 6,
  reservoir: 7,
  reviewPlan: 8,
  reviewText: 9,
  cluster: 10,
} as const;
