// The HTML report's stylesheet and script, inlined into the page: the page loads nothing at view time.

export const htmlStyle = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --accent: #2563eb; }
[hidden] { display: none !important; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 1rem 1.5rem; }
h1 { font-size: 1.2rem; margin: 0 0 .25rem; }
.summary { color: var(--muted); margin: 0 0 .75rem; }
.filters { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; position: sticky; top: 0;
  padding: .5rem 0; background: Canvas; border-bottom: 1px solid var(--line); z-index: 1; }
.filters label { display: flex; gap: .4rem; align-items: center; }
section.controller { margin: 1rem 0; border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
section.controller > h2 { font-size: 1rem; margin: 0 0 .5rem; }
.flow { display: flex; align-items: stretch; gap: .25rem; margin: .4rem 0; overflow-x: auto; }
.stage { border: 1px solid var(--line); border-radius: 4px; padding: .25rem .5rem; flex: 0 1 16rem; min-width: 8rem;
  overflow-wrap: anywhere; }
.stage .role { display: block; font-size: .7rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.stage.source { border-color: #16a34a88; } .stage.queue { border-color: #d9770688; } .stage.process { border-color: #2563eb88; }
.arrow { align-self: center; color: var(--muted); }
.name { font-family: ui-monospace, monospace; word-break: break-all; }
.detail { display: block; font-size: .8rem; color: var(--muted); }
a.loc { font-family: ui-monospace, monospace; font-size: .8rem; color: var(--accent); }
.library { font-size: .8rem; color: var(--muted); }
ul.notes { font-size: .85rem; }
`;

/** Filters the flows by kind and controller (both kept in the address's #fragment) and counts what is shown. */
export const htmlScript = `
(() => {
  const kind = document.getElementById("kind");
  const controller = document.getElementById("controller");
  const shown = document.getElementById("shown");
  const flows = [...document.querySelectorAll(".flow")];
  const apply = () => {
    let count = 0;
    for (const flow of flows) {
      const visible = (!kind.value || flow.dataset.kind === kind.value) &&
        (!controller.value || flow.dataset.controller === controller.value);
      flow.hidden = !visible;
      if (visible) count++;
    }
    for (const section of document.querySelectorAll("section.controller"))
      section.hidden = !section.querySelector(".flow:not([hidden])");
    shown.textContent = count + " of " + flows.length + " flow(s)";
    const state = new URLSearchParams();
    if (kind.value) state.set("kind", kind.value);
    if (controller.value) state.set("controller", controller.value);
    history.replaceState(null, "", state.size ? "#" + state : location.pathname + location.search);
  };
  const initial = new URLSearchParams(location.hash.slice(1));
  for (const [select, key] of [[kind, "kind"], [controller, "controller"]]) {
    const wanted = initial.get(key);
    if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
    select.addEventListener("change", apply);
  }
  apply();
})();
`;
