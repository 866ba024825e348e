/**
 * First run: with no LLM source the page opens here. A preset fills the adapter and address;
 * the daemon lists the source's models and test-calls it (the browser never reaches the
 * provider), then saves it as config keys. The persona and the memory model sit below.
 */
import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, send } from "./_api.ts";
import { t, type TextKey } from "./_i18n.ts";
import { MemoryModelCard } from "./_setup_model.ts";
import { setupNeeded } from "./_setup_check.ts";

interface Preset {
  adapter: string;
  baseUrl: string;
  /** A model name to suggest before the list is fetched. */
  model: string;
  /** Whether the provider needs a key (Ollama and local servers do not). */
  key: "required" | "optional" | "none";
}

/** The providers a new owner picks from: adapter and the base URL their own SDK takes. */
const PRESETS = {
  openai: {
    adapter: "openai",
    baseUrl: "https://api.openai.com/v1",
    model: "gpt-4o-mini",
    key: "required",
  },
  deepseek: {
    adapter: "deepseek",
    baseUrl: "https://api.deepseek.com",
    model: "deepseek-chat",
    key: "required",
  },
  anthropic: {
    adapter: "anthropic",
    baseUrl: "https://api.anthropic.com",
    model: "claude-sonnet-4-5",
    key: "required",
  },
  gemini: {
    adapter: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    model: "gemini-2.5-flash",
    key: "required",
  },
  ollama: {
    adapter: "ollama",
    baseUrl: "http://127.0.0.1:11434",
    model: "qwen2.5:7b",
    key: "none",
  },
  custom: { adapter: "openai", baseUrl: "", model: "", key: "optional" },
} as const satisfies Record<string, Preset>;
type PresetName = keyof typeof PRESETS;

/** A probe's failure as the daemon reports it. */
interface Failure {
  kind: string;
  message: string;
  status?: number;
}

type Said = { ok: boolean; text: string } | undefined;

const valueOf = (e: Event) => (e.target as HTMLInputElement).value;

function Field(
  { id, label, help, children }: {
    id: string;
    label: string;
    help?: string;
    children?: ComponentChildren;
  },
) {
  return h(
    "div",
    { class: "setting" },
    h("div", { class: "setting-head" }, h("label", { for: id }, label)),
    help && h("div", { class: "hint", id: `${id}-help` }, help),
    children,
  );
}

function Said({ said }: { said: Said }) {
  if (!said) return null;
  return h(
    "div",
    { class: said.ok ? "ok" : "error", role: said.ok ? "status" : "alert" },
    said.ok ? said.text : [h("b", null, t("setupFailed")), " ", said.text],
  );
}

/** The source form: preset, address, key, model (listed or typed), test, save. */
function SourceCard() {
  const [preset, setPreset] = useState<PresetName>("openai");
  const [baseUrl, setBaseUrl] = useState<string>(PRESETS.openai.baseUrl);
  const [apiKey, setApiKey] = useState("");
  const [models, setModels] = useState<string[] | undefined>();
  const [model, setModel] = useState("");
  const [busy, setBusy] = useState<"" | "list" | "test" | "save">("");
  const [said, setSaid] = useState<Said>();
  const [saved, setSaved] = useState("");
  const spec: Preset = PRESETS[preset];
  const draft = () => ({ adapter: spec.adapter, baseUrl: baseUrl.trim(), apiKey, model });
  const choose = (name: PresetName) => {
    setPreset(name);
    setBaseUrl(PRESETS[name].baseUrl);
    setModels(undefined);
    setModel("");
    setSaid(undefined);
  };
  const run = async (step: "list" | "test" | "save", action: () => Promise<Said>) => {
    setBusy(step);
    setSaid(undefined);
    try {
      setSaid(await action());
    } catch (error) {
      setSaid({ ok: false, text: messageOf(error) });
    } finally {
      setBusy("");
    }
  };
  const list = () =>
    run("list", async () => {
      const r = await send<{ ok: boolean; models?: string[]; error?: Failure }>(
        "POST",
        "/api/v1/setup/models",
        draft(),
      );
      if (!r.ok) return { ok: false, text: r.error!.message };
      const found = r.models ?? [];
      setModels(found.length > 0 ? found : undefined);
      if (found.length > 0 && !found.includes(model)) setModel(found[0]!);
      return {
        ok: true,
        text: found.length > 0 ? t("setupModelsFound", { n: found.length }) : t("setupNoList"),
      };
    });
  const test = () =>
    run("test", async () => {
      const r = await send<{ ok: boolean; model?: string; ms?: number; error?: Failure }>(
        "POST",
        "/api/v1/setup/test",
        draft(),
      );
      return r.ok
        ? { ok: true, text: t("setupTestOk", { model: r.model ?? model, ms: r.ms ?? 0 }) }
        : { ok: false, text: r.error!.message };
    });
  const save = (e: Event) => {
    e.preventDefault();
    void run("save", async () => {
      const r = await send<{ source: { name: string } }>("POST", "/api/v1/setup/source", draft());
      setSaved(r.source.name);
      setupNeeded.value = false;
      return undefined;
    });
  };
  const ready = baseUrl.trim() !== "" && (spec.key !== "required" || apiKey !== "");
  const keyLabel = spec.key === "required" ? t("setupKey") : t("setupKeyOptional");
  return h(
    "form",
    { class: "card setup-source", onSubmit: save, "aria-labelledby": "setup-source-title" },
    h("h3", { id: "setup-source-title" }, t("setupSource")),
    h(
      Field,
      { id: "setup-preset", label: t("setupPreset") },
      h(
        "select",
        {
          id: "setup-preset",
          value: preset,
          onChange: (e: Event) => choose(valueOf(e) as PresetName),
        },
        (Object.keys(PRESETS) as PresetName[]).map((name) =>
          h("option", { key: name, value: name }, t(`preset_${name}` as TextKey))
        ),
      ),
    ),
    h(
      Field,
      { id: "setup-base-url", label: t("setupBaseUrl") },
      h("input", {
        id: "setup-base-url",
        type: "url",
        value: baseUrl,
        placeholder: "https://…/v1",
        autocomplete: "off",
        onInput: (e: Event) => setBaseUrl(valueOf(e)),
      }),
    ),
    spec.key !== "none" && h(
      Field,
      { id: "setup-key", label: keyLabel, help: t("setupKeyHelp") },
      h("input", {
        id: "setup-key",
        type: "password",
        value: apiKey,
        autocomplete: "new-password",
        "aria-describedby": "setup-key-help",
        onInput: (e: Event) => setApiKey(valueOf(e)),
      }),
    ),
    h(
      Field,
      { id: "setup-model", label: t("setupModel") },
      h(
        "div",
        { class: "row" },
        models
          ? h(
            "select",
            { id: "setup-model", value: model, onChange: (e: Event) => setModel(valueOf(e)) },
            models.map((m) => h("option", { key: m, value: m }, m)),
          )
          : h("input", {
            id: "setup-model",
            value: model,
            placeholder: spec.model,
            autocomplete: "off",
            onInput: (e: Event) => setModel(valueOf(e)),
          }),
        h("button", {
          type: "button",
          id: "setup-list",
          disabled: !ready || busy !== "",
          onClick: list,
        }, busy === "list" ? t("setupListing") : t("setupListModels")),
      ),
    ),
    h(
      "div",
      { class: "row" },
      h("button", {
        type: "button",
        id: "setup-test",
        disabled: !ready || model.trim() === "" || busy !== "",
        onClick: test,
      }, busy === "test" ? t("setupTesting") : t("setupTest")),
      h("button", {
        type: "submit",
        id: "setup-save",
        class: "primary",
        disabled: !ready || model.trim() === "" || busy !== "",
      }, t("setupSave")),
    ),
    h("div", { id: "setup-said", "aria-live": "polite" }, h(Said, { said })),
    saved && h(
      "p",
      { class: "ok", role: "status", id: "setup-saved" },
      t("setupSaved", { name: saved }),
      " ",
      h("a", { href: "#chat", class: "button primary" }, t("setupToChat")),
    ),
  );
}

/** persona.md, edited in place. */
function PersonaCard() {
  const [text, setText] = useState<string | undefined>();
  const [said, setSaid] = useState<Said>();
  useEffect(() => {
    api<{ persona: string }>("/api/v1/setup").then(
      (r) => setText(r.persona),
      (e) => setSaid({ ok: false, text: messageOf(e) }),
    );
  }, []);
  const save = (e: Event) => {
    e.preventDefault();
    send<{ persona: string }>("PUT", "/api/v1/setup/persona", { text }).then(
      (r) => (setText(r.persona), setSaid({ ok: true, text: t("saved") })),
      (error) => setSaid({ ok: false, text: messageOf(error) }),
    );
  };
  return h(
    "form",
    { class: "card setup-persona", onSubmit: save, "aria-labelledby": "setup-persona-title" },
    h("h3", { id: "setup-persona-title" }, t("setupPersona")),
    h("p", { class: "hint", id: "setup-persona-help" }, t("setupPersonaHelp")),
    h("textarea", {
      id: "setup-persona",
      rows: 8,
      "aria-labelledby": "setup-persona-title",
      "aria-describedby": "setup-persona-help",
      value: text ?? "",
      disabled: text === undefined,
      onInput: (e: Event) => setText((e.target as HTMLTextAreaElement).value),
    }),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { type: "submit", id: "setup-persona-save", disabled: !text?.trim() },
        t(
          "setupPersonaSave",
        ),
      ),
    ),
    h(Said, { said }),
  );
}

/** The setup view. */
export function SetupView() {
  return h(
    "section",
    { class: "setup" },
    h("h2", null, setupNeeded.value ? t("setupTitle") : t("setup")),
    h("p", { class: "hint" }, t("setupIntro")),
    h(SourceCard, null),
    h(PersonaCard, null),
    h(MemoryModelCard, null),
  );
}
