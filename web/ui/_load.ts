/** Loading a view's data from the API, and reading an input's value. */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, messageOf } from "./_api.ts";
import { t } from "./_i18n.ts";

/** Load `path` once; returns [data, error, reload]. */
export function useLoad<T>(path: string): [T | undefined, string, () => void] {
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState("");
  const load = () =>
    void api<T>(path).then((d) => {
      setData(d);
      setError("");
    }, (e) =>
      setError(
        e instanceof ApiError && e.status === 501
          ? `${t("notAvailable")}: ${e.message}`
          : messageOf(e),
      ));
  useEffect(load, [path]);
  return [data, error, load];
}

/** The value of the input an event came from. */
export const value = (e: Event) => (e.target as HTMLInputElement).value;
