// @crdgen/explore: maps an operator's event flow (informer → handler → workqueue → worker loop → processing function) in Go and TypeScript sources; `crdgen explore` runs it.
export { explore } from "./explore.js";
export { goTypesProgram } from "./go/typed.js";
export { commonAncestor, ExploreInputError, type DiscoverOptions } from "./discover.js";
export { keyOf, keysOf, type Constraint, type Loc, type Slot, type Value, type ValueTag } from "./facts.js";
export {
  flowKeys,
  notReadSummary,
  unsupportedLanguages,
  type Controller,
  type ExploreResult,
  type Handler,
  type Place,
  type Producer,
  type Queue,
  type Source,
  type Worker,
} from "./model.js";
export { PointsTo, fieldSlot } from "./points-to.js";
export { textReport } from "./report-text.js";
export { jsonReport } from "./report-json.js";
export { htmlReport, locationUrl, type HtmlOptions } from "./report-html.js";
export { dotReport, graphSize, graphSizeNote, mermaidReport, readableNodes } from "./report-graph.js";
export { filterByKind, kindsOf } from "./by-kind.js";
