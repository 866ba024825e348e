/**
 * The memory graph drawn with cytoscape. Built as its own bundle (web/ui/dist/graph.js, loaded
 * when the graph is first shown) so the page's first load does not parse cytoscape; it imports
 * nothing of the page, so nothing is bundled twice.
 */
import cytoscape from "cytoscape";

/** What to draw: entities and the facts between them. */
export interface GraphPicture {
  nodes: { name: string; type: string; mentions: number }[];
  edges: { id: number; source: string; target: string; label: string; closed: boolean }[];
}

/** Colours the drawing takes from the page's theme (CSS variables). */
export interface GraphColours {
  node: string;
  text: string;
  line: string;
  picked: string;
}

/** A drawing; destroy it before drawing again into the same box. */
export interface GraphDrawing {
  destroy(): void;
}

/** Draw `picture` into `box`; `onPick` gets the name of a tapped entity. */
export function drawGraph(
  box: HTMLElement,
  picture: GraphPicture,
  options: { colours: GraphColours; onPick(name: string): void },
): GraphDrawing {
  const { colours } = options;
  const cy = cytoscape({
    container: box,
    elements: [
      ...picture.nodes.map((n) => ({
        data: { id: "n:" + n.name, label: n.name, weight: Math.min(40, 18 + n.mentions * 2) },
      })),
      ...picture.edges.map((e) => ({
        data: { id: "r:" + e.id, source: "n:" + e.source, target: "n:" + e.target, label: e.label },
        classes: e.closed ? "closed" : "",
      })),
    ],
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          width: "data(weight)",
          height: "data(weight)",
          "background-color": colours.node,
          color: colours.text,
          "font-size": 12,
          "text-valign": "bottom",
          "text-margin-y": 3,
        },
      },
      {
        selector: "edge",
        style: {
          label: "data(label)",
          "curve-style": "bezier",
          "target-arrow-shape": "triangle",
          width: 1.5,
          "font-size": 10,
          color: colours.text,
          "line-color": colours.line,
          "target-arrow-color": colours.line,
          "text-rotation": "autorotate",
        },
      },
      { selector: "edge.closed", style: { "line-style": "dashed", opacity: 0.6 } },
      { selector: "node:selected", style: { "background-color": colours.picked } },
    ],
    layout: { name: picture.nodes.length > 1 ? "cose" : "grid", animate: false },
  });
  cy.on("tap", "node", (e) => options.onPick(String(e.target.data("label"))));
  return { destroy: () => cy.destroy() };
}
