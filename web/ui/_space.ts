/** The memory view's first line: which vector space is active, its missing layers, re-embedding. */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "./_api.ts";
import { t } from "./_i18n.ts";

interface SpaceLayer {
  layer: "model" | "word_vectors" | "words";
  state: "active" | "failed" | "not_configured" | "standby";
  error?: string;
  enable?: string;
}

interface SpaceStatus {
  fingerprint: string;
  semantic: boolean;
  hint?: string;
  layers?: SpaceLayer[];
  reembed: { state: string; done: number; total: number };
}

const LAYER_NAME = {
  model: () => t("layer_model"),
  word_vectors: () => t("layer_word_vectors"),
  words: () => t("layer_words"),
} as const;
const LAYER_STATE = {
  failed: () => t("layer_failed"),
  not_configured: () => t("layer_not_configured"),
} as const;

/** The layers above the active one, each saying why it is missing and how to enable it. */
function MissingLayers({ layers }: { layers: readonly SpaceLayer[] }) {
  const missing = layers.flatMap((l) =>
    l.state === "failed" || l.state === "not_configured" ? [{ ...l, state: l.state }] : []
  );
  if (missing.length === 0) return null;
  return h(
    "ul",
    { class: "layers" },
    missing.map((l) =>
      h(
        "li",
        { key: l.layer, "data-layer": l.layer, "data-state": l.state },
        h("small", null, `${LAYER_NAME[l.layer]()}: ${LAYER_STATE[l.state]()}`),
        l.error ? h("small", { class: "error" }, ` — ${l.error}`) : null,
        l.enable ? h("small", { class: "hint" }, ` — ${l.enable.replaceAll("`", "")}`) : null,
      )
    ),
  );
}

/** Which vector space memory uses, re-embedding progress, and how to get recall by meaning. */
export function SpaceLine() {
  const [space, setSpace] = useState<SpaceStatus | undefined>();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const poll = () =>
      api<{ memory?: { embedding?: SpaceStatus } }>("/api/v1/status").then((s) => {
        if (!live) return;
        setSpace(s.memory?.embedding);
        if (s.memory?.embedding?.reembed.state === "running") timer = setTimeout(poll, 5000);
      }, () => {});
    poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  if (!space) return null;
  const { reembed } = space;
  return h(
    "p",
    { class: "space", "data-space": space.fingerprint },
    h("small", null, `${t("vectorSpace")}: ${space.fingerprint}`),
    reembed.state === "running"
      ? h("small", null, ` — ${t("reembedding", { done: reembed.done, total: reembed.total })}`)
      : null,
    space.semantic ? null : [
      h("br", null),
      h(
        "small",
        { class: "hint" },
        t("wordsOnly"),
        " ",
        h("code", null, "homeagent memory model install"),
      ),
    ],
    h(MissingLayers, { layers: space.layers ?? [] }),
  );
}
