/**
 * The skills panel's routes: list the skills in <home>/skills, install one by source in two
 * steps (a review of what the package holds, then a confirm naming its integrity, so what is
 * installed is what the owner saw), and remove one. 501 when the port is not wired.
 */
import type { Env, Hono } from "hono";
import { z } from "zod";
import type { WebDeps } from "./ports.ts";
import { HttpError, parseBody } from "./_http.ts";

const InstallBody = z.lazy(() =>
  z.object({
    source: z.string().min(1).max(300),
    /** The integrity the review answered; absent: only review. */
    confirm: z.string().min(1).max(200).optional(),
  })
);

/** Mount /api/v1/skills. */
export function mountSkills<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const skills = () => {
    if (!deps.skills) {
      throw new HttpError(501, "not_available", "Skills are not wired in this server");
    }
    return deps.skills;
  };
  app.get("/api/v1/skills", (c) => c.json({ skills: skills().list() }));
  app.post("/api/v1/skills", async (c) => {
    const body = await parseBody(c, InstallBody);
    const review = await skills().review(body.source);
    if (body.confirm === undefined) return c.json({ installed: false, review });
    if (body.confirm !== review.integrity) {
      throw new HttpError(
        409,
        "review_conflict",
        `This package (${
          review.integrity ?? "no integrity"
        }) is not the one confirmed; review it again`,
      );
    }
    const installed = await skills().install(review.source, review.integrity);
    return c.json({ installed: true, review, skills: installed }, 201);
  });
  app.delete("/api/v1/skills/:name", async (c) => {
    await skills().remove(c.req.param("name"));
    return c.json({ removed: c.req.param("name") });
  });
}
