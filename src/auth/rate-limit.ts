import { createRequire } from "node:module";
import type { GraphQLResolveInfo, GraphQLSchema } from "graphql";
import { type RateLimitArgs, rateLimitDirective } from "graphql-rate-limit-directive";
import type { Plugin } from "graphql-yoga";
import type { Redis } from "ioredis";
import {
  type IRateLimiterOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { DEFAULT_TIMEOUTS, type Timeouts } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { ApiKey } from "./keys.ts";
import {
  directiveArgs,
  type Endpoint,
  POLL_INTERVAL_SECONDS,
  RATE_LIMITS,
  unitsPerRequest,
} from "./limits.ts";
import type { Budget } from "./rate-headers.ts";
import {
  type Charge,
  chargedEndpoint,
  placeOf,
  type RateLimitContext,
  RateUsage,
  rateLimitedError,
  seconds,
  Verdict,
} from "./rate-usage.ts";

/**
 * Per-key, per-endpoint rate limits (docs/api.md section 8) with graphql-rate-limit-directive over
 * rate-limiter-flexible: in memory, or in Redis so that every gateway process draws on one budget.
 *
 * How one request draws on them is src/auth/rate-usage.ts; the fields an answer reports them in,
 * src/auth/rate-headers.ts.
 */

export interface RateLimiterConfig {
  enabled: boolean;
  redisUrl: string | null;
  /** Prefix of the keys in Redis. */
  keyPrefix?: string;
}

/**
 * ioredis's client class, loaded when a gateway has a REDIS_URL: without one it is never loaded
 * (ioredis was a tenth of the CPU of a restart's module loading).
 */
const redisClient = (): typeof Redis =>
  (createRequire(import.meta.url)("ioredis") as typeof import("ioredis")).Redis;

/**
 * The rate limiters of one gateway process. With Redis, each limiter falls back to memory while
 * Redis is unreachable (per-process limits rather than none, or refusing everyone).
 */
export class RateLimits {
  readonly enabled: boolean;
  /** The budgets' store, shared by every gateway (null: in memory); the month's counts use it too. */
  readonly redis: Redis | null;
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /** Per request (or caller without one: src/auth/plugin.ts's Caller). */
  private readonly usages = new WeakMap<object, RateUsage>();
  readonly keyPrefix: string;
  /** Told of each refusal (src/ops/metrics.ts counts them by plan and endpoint). */
  onRefusal: ((plan: string, endpoint: string) => void) | null = null;

  constructor(
    config: RateLimiterConfig,
    private readonly logger: Logger,
    timeouts: Pick<Timeouts, "redisConnectMs" | "redisCommandMs"> = DEFAULT_TIMEOUTS,
  ) {
    this.enabled = config.enabled;
    this.keyPrefix = config.keyPrefix ?? "storegraph:rl";
    this.connectTimeoutMs = timeouts.redisConnectMs;
    // Every wait on Redis is bounded, and a failed command falls back to the in-memory limiter
    // (insuranceLimiter): a command unanswered within commandTimeout fails (a stalled Redis keeps
    // the connection "ready", so rejectIfRedisNotReady alone does not catch it), and while
    // disconnected commands fail at once rather than queue for the reconnection.
    this.redis =
      config.enabled && config.redisUrl
        ? new (redisClient())(config.redisUrl, {
            maxRetriesPerRequest: 1,
            connectTimeout: timeouts.redisConnectMs,
            commandTimeout: timeouts.redisCommandMs,
            enableOfflineQueue: false,
            lazyConnect: true,
          })
        : null;
    // While Redis is down the client retries every few seconds: say so once a minute, not each time.
    let warned = 0;
    this.redis?.on("error", (err) => {
      if (Date.now() - warned < 60_000) return;
      warned = Date.now();
      this.logger.warn({ err: err.message }, "rate limits: Redis error; budgets are per process meanwhile");
    });
    this.redis?.on("ready", () => {
      if (warned) this.logger.info("rate limits: Redis is back");
      warned = 0;
    });
    // Requests wait for the first connection (at most its timeout) rather than count in memory.
    this.connected = this.redis ? this.ready() : null;
    if (this.redis) this.watchForStalls(this.redis, timeouts.redisCommandMs);
  }

  private stallWatch: NodeJS.Timeout | null = null;

  /**
   * A stalled Redis keeps its connection "ready", so each request would wait out the command
   * timeout before falling back to memory. A ping a second finds the stall instead: the
   * connection is then dropped and opened again, and until Redis answers the new one's handshake
   * it is not ready, so commands fail at once (no offline queue) and every request draws on the
   * in-memory budgets without waiting.
   */
  private watchForStalls(redis: Redis, commandMs: number): void {
    let pinging = false;
    this.stallWatch = setInterval(
      () => {
        if (pinging || redis.status !== "ready") return;
        pinging = true;
        redis
          .ping()
          .catch((err: Error) => {
            if (redis.status !== "ready" || !/timed out/i.test(err.message)) return;
            this.logger.warn(
              { err: err.message },
              "rate limits: Redis stopped answering; reconnecting, budgets are per process meanwhile",
            );
            redis.disconnect(true);
          })
          .finally(() => {
            pinging = false;
          });
      },
      Math.max(1000, commandMs),
    );
    this.stallWatch.unref();
  }

  /** The Redis connection's state (tests and health): null without Redis. */
  get redisStatus(): string | null {
    return this.redis?.status ?? null;
  }

  /** The first connection to Redis; null without Redis. */
  private readonly connected: Promise<boolean> | null;
  private readonly connectTimeoutMs: number;

  /** A GraphQL request's usage record: how it draws on budgets (see Charge). */
  usageFor(request: object, key: ApiKey | null, charge: Charge): RateUsage {
    const usage = new RateUsage(this.enabled ? key : null, charge);
    this.usages.set(request, usage);
    return usage;
  }

  /** The rate-limit headers of what `request` drew on (none when nothing). */
  headersOf(request: object): Record<string, string> {
    return this.usages.get(request)?.headers() ?? {};
  }

  /** Writes each GraphQL response's rate-limit headers; closes Redis with the app. */
  plugin(): Plugin {
    return {
      onRequest: async () => {
        if (this.connected) await this.connected;
      },
      onResponse: ({ request, response }) => {
        for (const [name, value] of Object.entries(this.headersOf(request)))
          response.headers.set(name, value);
      },
      onDispose: () => this.close(),
    };
  }

  /** Connects to Redis (if used); resolves false when it cannot within the timeout. */
  async ready(timeoutMs = this.connectTimeoutMs): Promise<boolean> {
    if (!this.redis) return true;
    if (this.redis.status === "ready") return true;
    try {
      await Promise.race([
        this.redis.status === "wait"
          ? this.redis.connect()
          : new Promise((r) => this.redis?.once("ready", r)),
        new Promise((_r, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs).unref()),
      ]);
      return true;
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message },
        "rate limits: Redis unreachable; limits are per process until it is back",
      );
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.stallWatch) clearInterval(this.stallWatch);
    if (this.redis && this.redis.status !== "end") await this.redis.quit().catch(() => {});
  }

  /** A limiter of `points` per `duration` seconds (one per size, shared by the endpoints of that size). */
  limiter(points: number, duration: number): RateLimiterAbstract {
    const name = `${points}/${duration}s`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = this.create({ points, duration, keyPrefix: this.keyPrefix });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private create(opts: IRateLimiterOptions): RateLimiterAbstract {
    if (!this.redis) return new RateLimiterMemory(opts);
    return new RateLimiterRedis({
      ...opts,
      storeClient: this.redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(opts),
    });
  }

  /** The schema with every `@rateLimit` field enforcing its endpoint's budget. */
  apply(schema: GraphQLSchema): GraphQLSchema {
    if (!this.enabled) return schema;
    // The library builds one limiter per directive size through this class: ours, so that the
    // store (memory or Redis) and the limiters that REST peeks at are the same objects.
    const self = this;
    class Limiter {
      constructor(opts: IRateLimiterOptions) {
        // biome-ignore lint/correctness/noConstructorReturn: hands the library the shared limiter
        return self.limiter(opts.points as number, opts.duration as number);
      }
    }
    const { rateLimitDirectiveTransformer } = rateLimitDirective<RateLimitContext>({
      name: "rateLimit",
      limiterClass: Limiter as unknown as typeof RateLimiterMemory,
      pointsCalculator: (_d, _s, _a, ctx, info) => this.units(ctx.rateUsage, info),
      keyGenerator: (_d, _s, _a, ctx, info) =>
        bucketKey(chargedEndpoint(ctx.rateUsage, info) as Endpoint, ctx.rateUsage.key as ApiKey),
      setState: (res, d, _s, _a, ctx, info) => this.settle(ctx.rateUsage, info, res, d),
      onLimit: (res, _d, _s, _a, ctx, info) => {
        const usage = ctx.rateUsage;
        const endpoint = chargedEndpoint(usage, info) as Endpoint;
        const retryAfter = seconds(res.msBeforeNext);
        usage.retryAfter = Math.max(usage.retryAfter ?? 0, retryAfter);
        this.onRefusal?.((usage.key as ApiKey).plan, endpoint);
        const error = rateLimitedError(
          endpoint,
          retryAfter,
          RATE_LIMITS[endpoint][(usage.key as ApiKey).plan],
        );
        usage.charged.get(placeOf(info))?.reject(error);
        throw error;
      },
    });
    return rateLimitDirectiveTransformer(schema);
  }

  /**
   * Units this resolution consumes: its plan's price the first time a place of the operation is
   * reached, and 0 after (each list item waits for the first one's verdict and shares it).
   */
  private async units(usage: RateUsage | undefined, info: GraphQLResolveInfo): Promise<number> {
    if (!usage?.key) return 0;
    const endpoint = chargedEndpoint(usage, info);
    if (!endpoint) return 0;
    const place = placeOf(info);
    const prior = usage.charged.get(place);
    if (prior) {
      await prior.done;
      return 0;
    }
    usage.charged.set(place, new Verdict());
    return unitsPerRequest(endpoint, usage.key.plan);
  }

  private settle(usage: RateUsage, info: GraphQLResolveInfo, res: RateLimiterRes, d: RateLimitArgs) {
    const endpoint = chargedEndpoint(usage, info) as Endpoint;
    usage.record(endpoint, res);
    if (res.consumedPoints <= d.limit) usage.charged.get(placeOf(info))?.resolve();
  }

  /** The state of a budget without drawing on it (for responses that drew on none). */
  async peek(endpoint: Endpoint, key: ApiKey): Promise<Budget | null> {
    if (!this.enabled) return null;
    const { limit, duration } = directiveArgs(endpoint);
    const res =
      (await this.limiter(limit, duration)
        .get(bucketKey(endpoint, key))
        .catch(() => null)) ?? new RateLimiterRes(limit, 0, 0);
    const usage = new RateUsage(key, { kind: "none" });
    const budget = usage.record(endpoint, res);
    if (budget && res.msBeforeNext <= 0) budget.resetMs = duration * 1000;
    return budget;
  }

  /**
   * Draws on an endpoint's budget outside GraphQL (starting a cursor=all job or an export). Returns
   * the budget, or throws the RATE_LIMITED error (with its Retry-After) when it is exhausted.
   */
  async consume(endpoint: Endpoint, key: ApiKey): Promise<Budget | null> {
    if (!this.enabled) return null;
    const { limit, duration } = directiveArgs(endpoint);
    const usage = new RateUsage(key, { kind: "none" });
    try {
      const res = await this.limiter(limit, duration).consume(
        bucketKey(endpoint, key),
        unitsPerRequest(endpoint, key.plan),
      );
      return usage.record(endpoint, res);
    } catch (e) {
      if (e instanceof Error) throw e;
      const res = e as RateLimiterRes;
      this.onRefusal?.(key.plan, endpoint);
      throw Object.assign(
        rateLimitedError(endpoint, seconds(res.msBeforeNext), RATE_LIMITS[endpoint][key.plan]),
        {
          budget: usage.record(endpoint, res),
        },
      );
    }
  }

  /**
   * cursor=all polling: at most one request per job per POLL_INTERVAL_SECONDS. Returns the seconds
   * to wait, or null when this poll is allowed.
   */
  async poll(key: ApiKey, job: string): Promise<number | null> {
    if (!this.enabled) return null;
    try {
      await this.limiter(1, POLL_INTERVAL_SECONDS).consume(`poll:${key.id}:${job}`, 1);
      return null;
    } catch (e) {
      if (e instanceof Error) throw e;
      this.onRefusal?.(key.plan, "listDomainsAll");
      return seconds((e as RateLimiterRes).msBeforeNext);
    }
  }
}

/** The bucket of one key's budget for one endpoint (by key id: the secret never leaves auth). */
const bucketKey = (endpoint: Endpoint, key: ApiKey) => `${endpoint}:${key.id}`;
